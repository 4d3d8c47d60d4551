"""Run a coroutine to completion from synchronous code, even inside a running loop."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run_sync"]

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` when no loop runs here; else run it on a fresh loop in a worker thread.

    The second case is a sync ``kickoff()`` called from a Jupyter cell or from a
    sync flow method executed by an async scheduler.
    """
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="crewgraph-sync") as pool:
        return pool.submit(asyncio.run, coro).result()
