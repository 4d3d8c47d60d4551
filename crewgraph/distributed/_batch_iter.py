"""``crew.kickoff_for_each_iter(...)``: a batch's results as they finish, for ``for`` and ``async for``.

The engine (:func:`crewgraph.runner.batch.run_batch`) is an async
generator. ``async for`` drives it on the caller's loop. Plain ``for`` runs it
on a private event loop in a worker thread and hands results over through a
queue, so a synchronous script (or the CLI's progress line) reads each result
the moment it exists. Leaving the loop early (``break``, an exception,
Ctrl-C) cancels the inputs still running; a checkpointed batch keeps them as
unfinished, to be resumed with ``from_checkpoint=batch_id``.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from crewgraph.distributed._batch_types import BatchResult

__all__ = ["BatchRun"]

_POLL_S = 0.25
_STOP_WAIT_S = 30.0


class BatchRun:
    """The results of one batch, each yielded once, in the order the inputs finish.

    Iterate it once, with ``for`` or ``async for``. ``batch_id`` is set as soon as the
    first result arrives (None for a batch that is not checkpointed); ``total`` is the
    number of inputs.
    """

    def __init__(self, make: Callable[[], AsyncIterator[BatchResult]], total: int) -> None:
        self._make = make
        self._used = False
        self.total = total
        self.batch_id: str | None = None

    def _claim(self) -> AsyncIterator[BatchResult]:
        if self._used:
            raise RuntimeError("a batch's results can be iterated only once")
        self._used = True
        return self._make()

    async def __aiter__(self) -> AsyncIterator[BatchResult]:
        agen = self._claim()
        try:
            async for result in agen:
                self.batch_id = result.batch_id
                yield result
        finally:
            await agen.aclose()  # type: ignore[attr-defined]

    def __iter__(self) -> Iterator[BatchResult]:
        pump = _Pump(self._claim())
        pump.start()
        try:
            while True:
                kind, value = pump.get()
                if kind == "end":
                    return
                if kind == "error":
                    raise value
                self.batch_id = value.batch_id
                yield value
        finally:
            pump.stop()


class _Pump:
    """Drives an async generator on its own loop in a daemon thread; results go into a queue."""

    def __init__(self, agen: AsyncIterator[BatchResult]) -> None:
        self._agen = agen
        self._queue: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._main, name="crewgraph-batch", daemon=True)

    def start(self) -> None:
        self._thread.start()
        self._started.wait(_STOP_WAIT_S)

    def get(self) -> tuple[str, Any]:
        while True:  # a bounded wait per poll, so a dead thread never hangs the caller
            try:
                return self._queue.get(timeout=_POLL_S)
            except queue.Empty:
                if not self._thread.is_alive() and self._queue.empty():
                    return ("error", RuntimeError("the batch worker thread stopped without a result"))

    def stop(self) -> None:
        loop, task = self._loop, self._task
        if loop is not None and task is not None and not task.done():
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:  # the loop closed in between: nothing left to cancel
                pass
        self._thread.join(_STOP_WAIT_S)

    def _main(self) -> None:
        asyncio.run(self._drive())

    async def _drive(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        self._started.set()
        agen = self._agen
        try:
            async for result in agen:
                self._queue.put(("item", result))
        except asyncio.CancelledError:
            self._queue.put(("end", None))
            return
        except BaseException as exc:
            self._queue.put(("error", exc))
            return
        finally:
            await agen.aclose()  # type: ignore[attr-defined]
        self._queue.put(("end", None))
