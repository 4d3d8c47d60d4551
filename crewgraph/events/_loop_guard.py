"""Finds ``async def`` event handlers that block the run's event loop, and moves them off it.

An async handler runs on the scheduler's loop, so one that calls ``time.sleep`` or does
blocking I/O inside ``async def`` stalls every node of the run while it runs (a parallel
crew of 4.1 s took 23.2 s with such a handler on ``TaskStartedEvent``). Nothing in the
handler's code says so, so the guard measures it: the handler's coroutine is stepped
through a wrapper that times each slice it runs between two awaits. A slice longer than
:data:`BLOCK_LIMIT` seconds is reported once per handler (a warning in the log naming the
handler and the event, and a record the CLI's run summary shows), and from then on that
handler runs in a worker thread with an event loop of its own, so it can no longer hold
the run back. Handlers that only await never pay more than two clock reads per slice.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Generator
from dataclasses import dataclass
from typing import Any

__all__ = ["BLOCK_LIMIT", "BlockedHandler", "LoopGuard"]

logger = logging.getLogger("crewgraph.events")

BLOCK_LIMIT = 0.2
"""Seconds an async handler may run between two awaits before it counts as blocking the loop."""

_KEPT = 200  # reports kept (the oldest are dropped): a process with many offenders stays bounded


@dataclass(frozen=True)
class BlockedHandler:
    """One handler found holding the event loop: who, on which event, for how long."""

    handler: str
    event_type: str
    seconds: float
    serial: int

    def message(self) -> str:
        return (
            f"event handler {self.handler} held the run's event loop for {self.seconds:.2f}s on "
            f"{self.event_type} (a blocking call such as time.sleep inside async def?); "
            "it now runs in a thread of its own"
        )


def handler_name(handler: Callable[..., Any]) -> str:
    module = getattr(handler, "__module__", None)
    name = getattr(handler, "__qualname__", None) or repr(handler)
    return f"{module}.{name}" if module else name


class LoopGuard:
    """The handlers found blocking so far, and how to run one: watched, or off the loop."""

    def __init__(self, limit: float | None = None) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._demoted: set[Any] = set()
        self._reports: list[BlockedHandler] = []
        self._serial = 0

    def blocking(self, handler: Any) -> bool:
        """True once ``handler`` was found holding the loop (it then runs off it)."""
        return handler in self._demoted

    def mark(self) -> int:
        """A position in the reports: :meth:`since` gives what was found after it."""
        with self._lock:
            return self._serial

    def since(self, mark: int) -> list[BlockedHandler]:
        with self._lock:
            return [r for r in self._reports if r.serial > mark]

    def run(self, handler: Callable[..., Awaitable[Any]], source: Any, event: Any) -> Awaitable[Any]:
        """What to await to run the async ``handler`` for ``event`` from the loop."""
        if handler in self._demoted:
            return asyncio.to_thread(_own_loop, handler, source, event)
        coro = handler(source, event)
        if not asyncio.iscoroutine(coro):
            return coro
        return _Watched(coro, self, handler, getattr(event, "event_type", type(event).__name__))

    def _found(self, handler: Any, event_type: str, seconds: float) -> None:
        with self._lock:
            if handler in self._demoted:
                return
            self._demoted.add(handler)
            self._serial += 1
            report = BlockedHandler(handler_name(handler), event_type, seconds, self._serial)
            self._reports.append(report)
            del self._reports[:-_KEPT]
        logger.warning("%s", report.message())

    def _limit(self) -> float:
        return BLOCK_LIMIT if self.limit is None else self.limit


class _Watched:
    """Awaits a coroutine slice by slice, timing each slice it runs on the loop."""

    __slots__ = ("_coro", "_event_type", "_guard", "_handler")

    def __init__(self, coro: Coroutine[Any, Any, Any], guard: LoopGuard, handler: Any, event_type: str) -> None:
        self._coro = coro
        self._guard = guard
        self._handler = handler
        self._event_type = event_type

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, limit = self._coro, self._guard._limit()
        send: Any = None
        error: BaseException | None = None
        longest = 0.0
        try:
            while True:
                start = time.perf_counter()
                try:
                    step = coro.throw(error) if error is not None else coro.send(send)
                except StopIteration as stop:
                    return stop.value
                finally:
                    held = time.perf_counter() - start
                    longest = max(longest, held)
                send, error = None, None
                try:
                    send = yield step
                except BaseException as exc:  # cancellation and the like go into the handler
                    error = exc
        finally:
            if longest > limit:
                self._guard._found(self._handler, self._event_type, longest)


def _own_loop(handler: Callable[..., Awaitable[Any]], source: Any, event: Any) -> Any:
    """Run a blocking async handler to its end on a loop of its own (in a worker thread)."""

    async def call() -> Any:
        return await handler(source, event)

    return asyncio.run(call())
