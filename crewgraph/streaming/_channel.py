"""A one-consumer FIFO between a run and whoever iterates its stream, sync or async.

The producer is a crew run: on a worker thread's loop (``kickoff()``) or on
the caller's loop (``kickoff_async()``). The consumer is a ``for`` loop in any
thread or an ``async for`` on any loop. So ``put`` never blocks and may be
called from any thread; ``get`` blocks on a condition; ``aget`` parks on a
future of the consumer's own loop, woken thread-safely.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from typing import Any

__all__ = ["Channel", "End"]


class End:
    """The last item of a channel: the run's result, or the error that ended it."""

    __slots__ = ("error", "result")

    def __init__(self, result: Any = None, error: BaseException | None = None) -> None:
        self.result = result
        self.error = error


class Channel:
    """Unbounded, thread-safe; items after :class:`End` are dropped (a cancelled run's stragglers)."""

    def __init__(self) -> None:
        self._items: deque[Any] = deque()
        self._cond = threading.Condition()
        self._closed = False
        self._waiter: tuple[asyncio.AbstractEventLoop, asyncio.Future[None]] | None = None

    def put(self, item: Any) -> None:
        with self._cond:
            if self._closed:
                return
            self._closed = isinstance(item, End)
            self._items.append(item)
            self._cond.notify_all()
            waiter, self._waiter = self._waiter, None
        if waiter is not None:
            loop, future = waiter
            try:
                loop.call_soon_threadsafe(_wake, future)
            except RuntimeError:  # the consumer's loop is closed: nobody is waiting any more
                pass

    def get(self) -> Any:
        """The next item, blocking until there is one."""
        with self._cond:
            while not self._items:
                self._cond.wait()
            return self._items.popleft()

    async def aget(self) -> Any:
        """The next item, awaiting (without blocking the loop) until there is one."""
        while True:
            with self._cond:
                if self._items:
                    return self._items.popleft()
                loop = asyncio.get_running_loop()
                future: asyncio.Future[None] = loop.create_future()
                self._waiter = (loop, future)
            await future


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
