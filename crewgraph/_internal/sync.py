"""Run a coroutine to completion from synchronous code, even inside a running loop."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, Generic, TypeVar

__all__ = ["run_sync"]

T = TypeVar("T")


class _Boxed(Generic[T]):
    """The coroutine's result, behind a constant ``repr``.

    ``asyncio.run`` (3.11) formats ``repr(main_task)`` on its way out — through
    ``signal.getsignal`` building an error message about its SIGINT handler — and a
    task's repr includes its result's: a whole ``CrewOutput`` (measured: 2 x 95 ms and
    3.6 MB of text at the end of a 5,000-task kickoff). The box keeps that repr tiny
    while ``asyncio.run`` keeps its Ctrl-C handling (cancel the main task, then raise).
    """

    __slots__ = ("value",)

    def __init__(self, value: T) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "<result>"


async def _boxed(coro: Coroutine[Any, Any, T]) -> _Boxed[T]:
    return _Boxed(await coro)


def _run(coro: Coroutine[Any, Any, T]) -> T:
    import asyncio

    return asyncio.run(_boxed(coro)).value


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` when no loop runs here; else run it on a fresh loop in a worker thread.

    The second case is a sync ``kickoff()`` called from a Jupyter cell or from a
    sync flow method executed by an async scheduler.
    """
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run(coro)
    from concurrent.futures import ThreadPoolExecutor
    from contextvars import copy_context

    # The caller's context variables go along (as asyncio.to_thread does), so a run started
    # from inside another knows what the outer one set (the default Agent.execute_task, usage scopes).
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="crewgraph-sync") as pool:
        return pool.submit(copy_context().run, _run, coro).result()
