"""The process-wide event bus: typed events in, sync and async handlers out.

Handlers are registered per event class and also receive instances of its
subclasses. Sync handlers run inline in the emitting thread (so ordering is
deterministic and tests need no sleeps); async handlers run on the caller's
event loop when there is one, else on a private background loop. A handler
that raises is logged and never breaks the run that emitted the event.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from crewgraph.events.base import BaseEvent

__all__ = ["CrewGraphEventsBus", "EventHandler", "crewgraph_event_bus"]

logger = logging.getLogger("crewgraph.events")

EventHandler = Callable[[Any, Any], Any]
E = TypeVar("E", bound=BaseEvent)


class CrewGraphEventsBus:
    """Registry of handlers by event type, with thread-safe emit."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._handlers: dict[type[BaseEvent], list[EventHandler]] = {}
        self._plan_cache: dict[type[BaseEvent], tuple[EventHandler, ...]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: threading.Thread | None = None
        self._pending: set[asyncio.Future[Any]] = set()

    # registration -------------------------------------------------------
    def on(self, event_type: type[E]) -> Callable[[EventHandler], EventHandler]:
        """Decorator: call ``handler(source, event)`` for every ``event_type`` emitted."""

        def decorator(handler: EventHandler) -> EventHandler:
            self.register_handler(event_type, handler)
            return handler

        return decorator

    def register_handler(self, event_type: type[BaseEvent], handler: EventHandler) -> None:
        if not (isinstance(event_type, type) and issubclass(event_type, BaseEvent)):
            raise TypeError(f"event_type must be a BaseEvent subclass, got {event_type!r}")
        with self._lock:
            self._handlers.setdefault(event_type, []).append(handler)
            self._plan_cache.clear()

    def off(self, event_type: type[BaseEvent], handler: EventHandler) -> None:
        """Remove a handler registered with :meth:`on`."""
        with self._lock:
            handlers = self._handlers.get(event_type, [])
            if handler in handlers:
                handlers.remove(handler)
            self._plan_cache.clear()

    @contextlib.contextmanager
    def scoped_handlers(self) -> Iterator[None]:
        """Within the block, start with no handlers; restore the previous ones after."""
        with self._lock:
            saved = {k: list(v) for k, v in self._handlers.items()}
            self._handlers = {}
            self._plan_cache.clear()
        try:
            yield
        finally:
            with self._lock:
                self._handlers = saved
                self._plan_cache.clear()

    def has_handlers(self, event_type: type[BaseEvent]) -> bool:
        return bool(self._plan(event_type))

    # emission -----------------------------------------------------------
    def _plan(self, event_type: type[BaseEvent]) -> tuple[EventHandler, ...]:
        plan = self._plan_cache.get(event_type)
        if plan is None:
            with self._lock:
                found: list[EventHandler] = []
                for klass in event_type.__mro__:
                    found.extend(self._handlers.get(klass, ()))
                plan = tuple(found)
                self._plan_cache[event_type] = plan
        return plan

    def emit(self, source: Any, event: BaseEvent) -> None:
        """Deliver ``event`` to every handler registered for its class or a base class."""
        for handler in self._plan(type(event)):
            try:
                if inspect.iscoroutinefunction(handler):
                    self._schedule_async(handler, source, event)
                else:
                    handler(source, event)
            except Exception:  # a listener must never break the run
                logger.exception("event handler %r failed on %s", handler, event.event_type)

    def _schedule_async(self, handler: EventHandler, source: Any, event: BaseEvent) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            task = loop.create_task(self._guard(handler, source, event))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)
            return
        fut = asyncio.run_coroutine_threadsafe(
            self._guard(handler, source, event), self._background_loop()
        )
        self._pending.add(fut)  # type: ignore[arg-type]
        fut.add_done_callback(lambda f: self._pending.discard(f))

    @staticmethod
    async def _guard(handler: EventHandler, source: Any, event: BaseEvent) -> None:
        try:
            await handler(source, event)
        except Exception:
            logger.exception("async event handler %r failed on %s", handler, event.event_type)

    def _background_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._loop_thread = threading.Thread(
                    target=self._loop.run_forever, name="crewgraph-events", daemon=True
                )
                self._loop_thread.start()
            return self._loop

    def flush(self, timeout: float = 5.0) -> None:
        """Wait (from sync code) until async handlers scheduled so far have finished."""
        import concurrent.futures

        for fut in list(self._pending):
            if isinstance(fut, concurrent.futures.Future):
                with contextlib.suppress(Exception):
                    fut.result(timeout=timeout)


crewgraph_event_bus = CrewGraphEventsBus()
