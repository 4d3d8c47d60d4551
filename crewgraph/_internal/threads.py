"""Sync user code off the event loop for less than ``asyncio.to_thread`` costs.

A sync tool runs in a worker thread so that a slow one does not hold up the other
nodes the scheduler has ready. ``asyncio.to_thread`` pays for that with a
``concurrent.futures.Future`` (a condition variable and its lock), a work item, the
executor's idle semaphore and an asyncio future chained to the first by callbacks in
both directions: about as many lock operations as the wake-ups themselves cost. Here
a call is one tuple on a ``SimpleQueue``, read by a long-lived worker that hands the
result back with one ``loop.call_soon_threadsafe``.

Kept from ``asyncio.to_thread`` and the run's default executor:

- the caller's context variables go along (a copy, as ``to_thread`` makes);
- each event loop has its own workers, at most ``min(32, cpus + 4)`` of them (the
  executor's default), so a run's tools overlap as before, and a tool that kicks
  off a crew of its own (another loop) never waits for threads its caller holds;
- a call cancelled before a worker took it does not run; one cancelled while it
  runs (a timeout) finishes in its thread with nobody waiting for it, and the end
  of the run does not wait for it either;
- the interpreter's exit lets idle workers go and waits for busy ones, as it does
  for an executor's threads.

The idle workers of a loop leave when the loop is garbage (or at the end of a run's own
loop, :func:`close_pool`), and any worker idle for :data:`IDLE_SECONDS` leaves, so the
workers of loops that are gone do not pile up.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import os
import threading
import weakref
from collections.abc import Callable
from queue import Empty, SimpleQueue
from typing import Any, TypeVar

__all__ = ["IDLE_SECONDS", "close_pool", "in_thread"]

T = TypeVar("T")

IDLE_SECONDS = 30.0
"""How long a worker waits for work before it leaves."""

_LIMIT = min(32, (os.cpu_count() or 1) + 4)
"""Workers per loop at most: ``ThreadPoolExecutor``'s default, what the run's executor allowed."""

_Item = tuple[asyncio.AbstractEventLoop, "asyncio.Future[Any]", contextvars.Context, Callable[..., Any], tuple[Any, ...]]


def _deliver(fut: asyncio.Future[Any], value: Any, error: BaseException | None) -> None:
    if fut.done():  # cancelled meanwhile (a timeout): nobody waits for this result
        return
    if error is not None:
        fut.set_exception(error)
    else:
        fut.set_result(value)


class _Pool:
    """The worker threads of one event loop.

    ``_idle`` holds one token per worker waiting for work: a call takes one
    (``list.pop`` is atomic), so two calls never count on the same idle worker,
    and with none left a new worker is started, up to the limit.
    """

    __slots__ = ("__weakref__", "_closed", "_count", "_idle", "_lock", "_name", "_queue")

    def __init__(self, name: str) -> None:
        self._queue: SimpleQueue[_Item | None] = SimpleQueue()
        self._idle: list[None] = []
        self._count = 0
        self._lock = threading.Lock()
        self._closed = False
        self._name = name

    def submit(self, item: _Item) -> None:
        try:
            self._idle.pop()
        except IndexError:
            self._grow()
        self._queue.put(item)

    def _grow(self) -> None:
        with self._lock:
            if self._count >= _LIMIT:
                return  # the call waits for a worker to finish, as with an executor
            self._count += 1
        thread = threading.Thread(target=self._work, name=f"{self._name}_{next(_numbers)}")
        _live.add(self)
        thread.start()

    def _work(self) -> None:
        get, idle = self._queue.get, self._idle
        try:
            while True:
                try:
                    item = get(timeout=IDLE_SECONDS)
                except Empty:
                    try:
                        idle.pop()  # leave, unless a call has just counted on this worker
                    except IndexError:
                        continue
                    return
                if item is None:
                    return
                _run(item)
                del item
                idle.append(None)
        finally:
            with self._lock:
                self._count -= 1

    def close(self) -> None:
        """Let idle workers go now; busy ones leave when their call is done (nobody waits)."""
        self._closed = True
        with self._lock:
            count = self._count
        for _ in range(count):
            self._queue.put(None)


def _run(item: _Item) -> None:
    loop, fut, ctx, fn, args = item
    if fut.cancelled():  # cancelled before a worker took it: it does not run, as with an executor
        return
    value: Any = None
    error: BaseException | None = None
    try:
        value = ctx.run(fn, *args)
    except StopIteration as exc:  # an asyncio future refuses StopIteration: it would never resolve
        error = RuntimeError(f"{getattr(fn, '__qualname__', fn)!r} raised StopIteration")
        error.__cause__ = exc
    except BaseException as exc:  # handed to the awaiting coroutine, as to_thread does
        error = exc
    try:
        loop.call_soon_threadsafe(_deliver, fut, value, error)
    except RuntimeError:  # the loop is closed: the run already stopped waiting
        pass


_numbers = itertools.count(1)
_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Pool] = weakref.WeakKeyDictionary()
_live: weakref.WeakSet[_Pool] = weakref.WeakSet()
_last: tuple[Any, _Pool | None] = (None, None)
"""The last loop asked for and its pool (a weak reference to the loop, so it can go)."""
_pools_lock = threading.Lock()


def _pool_for(loop: asyncio.AbstractEventLoop) -> _Pool:
    global _last
    ref, pool = _last
    if pool is not None and ref() is loop and not pool._closed:
        return pool
    with _pools_lock:
        pool = _pools.get(loop)
        if pool is None or pool._closed:
            pool = _pools[loop] = _Pool("crewgraph-tool")
            weakref.finalize(loop, pool.close)  # a loop that is gone lets its idle workers go
        _last = (weakref.ref(loop), pool)
    return pool


async def in_thread(fn: Callable[..., T], *args: Any) -> T:
    """``await asyncio.to_thread(fn, *args)``, on this loop's long-lived workers."""
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[T] = loop.create_future()
    _pool_for(loop).submit((loop, fut, contextvars.copy_context(), fn, args))
    return await fut


def close_pool(loop: asyncio.AbstractEventLoop) -> None:
    """At the end of a run's own loop: its idle workers go now instead of after ``IDLE_SECONDS``."""
    global _last
    with _pools_lock:
        pool = _pools.pop(loop, None)
        if _last[1] is pool:
            _last = (None, None)
    if pool is not None:
        pool.close()


def _at_exit() -> None:
    for pool in list(_live):
        pool.close()


def _forget_after_fork() -> None:
    """A forked child has none of its parent's threads: it starts its own workers."""
    global _last
    _pools.clear()
    _live.clear()
    _last = (None, None)


threading._register_atexit(_at_exit)  # type: ignore[attr-defined]  # what concurrent.futures uses
os.register_at_fork(after_in_child=_forget_after_fork)
