"""Per-endpoint concurrency limit: how many requests one server gets at once.

A local server with one generation slot (llama.cpp, llama-cpp-python, a
laptop's Ollama) queues concurrent requests. With ``Process.parallel`` each
queued request's clock runs while it waits, so the last ones time out
although the server is working; re-sent, they queue again behind the
generation the client abandoned. Limiting concurrency on the client side
moves the queue here, before the attempt's deadline starts.

The limit is ``LLM(max_concurrency=N)`` or ``$CREWGRAPH_LLM_CONCURRENCY``
(unlimited by default). When no limit was set, it is *learned*: a request
that times out while other requests to the same endpoint were in flight
halves the limit (down to 1), with a warning saying how to set it.

One :class:`EndpointSlots` serves every event loop and thread of the process
(``BaseLLM.call`` runs on fresh loops): a ``threading.Lock`` guards the
counters and waiters are woken with ``call_soon_threadsafe`` on their own loop.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import deque

__all__ = ["EndpointSlots", "endpoint_slots", "forget_endpoint"]

_log = logging.getLogger("crewgraph.llm")


class EndpointSlots:
    """A cross-loop semaphore whose size can be set, or learned from timeouts."""

    def __init__(self, endpoint: str, limit: int | None = None) -> None:
        self.endpoint = endpoint
        self.limit = limit
        self.explicit = limit is not None
        self.in_flight = 0
        self._lock = threading.Lock()
        self._waiters: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = deque()

    def set_limit(self, limit: int | None) -> None:
        """An explicit limit (from the user): never changed by learning."""
        with self._lock:
            self.limit = limit
            self.explicit = limit is not None
        self._wake()

    async def acquire(self) -> None:
        """Wait for a free slot (cancellation-safe: a cancelled waiter takes no slot)."""
        loop = asyncio.get_running_loop()
        while True:
            with self._lock:
                if self.limit is None or self.in_flight < self.limit:
                    self.in_flight += 1
                    return
                future: asyncio.Future[None] = loop.create_future()
                self._waiters.append((loop, future))
            try:
                await future
            except asyncio.CancelledError:
                with self._lock:
                    try:
                        self._waiters.remove((loop, future))
                    except ValueError:
                        pass
                self._wake()  # pass on a wake-up this waiter may have consumed
                raise

    def release(self) -> None:
        with self._lock:
            self.in_flight = max(0, self.in_flight - 1)
        self._wake()

    def _wake(self) -> None:
        """Wake as many waiters as there are free slots (they re-check under the lock)."""
        with self._lock:
            free = len(self._waiters) if self.limit is None else max(0, self.limit - self.in_flight)
            woken = [self._waiters.popleft() for _ in range(min(free, len(self._waiters)))]
        for loop, future in woken:
            try:
                loop.call_soon_threadsafe(_resolve, future)
            except RuntimeError:  # that loop is closed: its waiter is gone
                pass

    def note_timeout(self) -> None:
        """A request timed out while holding a slot: learn a lower limit if others were in flight."""
        with self._lock:
            if self.explicit or self.in_flight <= 1:
                return
            new = max(1, self.in_flight // 2)
            if self.limit is not None and new >= self.limit:
                return
            self.limit = new
        _log.warning(
            "LLM endpoint %s: a request timed out while %d were in flight; sending at most %d at a "
            "time from now on (set LLM(max_concurrency=...) or CREWGRAPH_LLM_CONCURRENCY to choose)",
            self.endpoint, self.in_flight, new,
        )


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


_SHARED: dict[str, EndpointSlots] = {}
_SHARED_LOCK = threading.Lock()


def endpoint_slots(endpoint: str, limit: int | None) -> EndpointSlots:
    """The process-wide slots of ``endpoint``; an explicit ``limit`` (re)sets its size."""
    with _SHARED_LOCK:
        slots = _SHARED.get(endpoint)
        if slots is None:
            slots = _SHARED[endpoint] = EndpointSlots(endpoint, limit)
            return slots
    if limit is not None and (slots.limit != limit or not slots.explicit):
        slots.set_limit(limit)
    return slots


def forget_endpoint(base_url: str) -> None:
    """Drop what was learned about ``base_url`` (a new server now listens on that port)."""
    with _SHARED_LOCK:
        for key in [k for k in _SHARED if k.rstrip("/") == base_url.rstrip("/")]:
            del _SHARED[key]
