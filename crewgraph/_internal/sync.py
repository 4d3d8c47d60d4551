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

    from crewgraph._internal.threads import close_pool

    with asyncio.Runner() as runner:  # asyncio.run's Ctrl-C handling, with our executor
        loop = runner.get_loop()
        loop.set_default_executor(_unjoined_executor())
        try:
            return runner.run(_boxed(coro)).value
        finally:
            close_pool(loop)  # the run's tool threads, which the end of the run does not wait for either


def _unjoined_executor() -> Any:
    """The run's default executor (sync tools, callbacks, ``asyncio.to_thread``), which the
    end of the run does not wait for.

    ``asyncio.run`` joins every thread of the default executor on its way out, so a tool
    hung past its task's ``max_execution_time`` held ``kickoff()`` until the tool returned
    (a 0.3 s deadline and a tool sleeping 10 s: ``kickoff`` raised the timeout after 10 s).
    The run has already stopped waiting for such a thread; its end now does too, and the
    thread finishes (or not) on its own, as a timed-out thread does in CrewAI.
    """
    from concurrent.futures import ThreadPoolExecutor

    class Unjoined(ThreadPoolExecutor):
        def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
            super().shutdown(wait=False, cancel_futures=cancel_futures)

    return Unjoined(thread_name_prefix="crewgraph-worker")


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
