"""Run an awaitable to completion from synchronous code, even inside a running loop."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

__all__ = ["resolve_sync"]

T = TypeVar("T")


async def _await(awaitable: Awaitable[T]) -> T:
    return await awaitable


def resolve_sync(awaitable: Awaitable[T]) -> T:
    """``asyncio.run`` when no loop runs in this thread, else a fresh loop in a worker thread.

    The second case is ``tool.run(...)`` on an async tool called from a sync
    function that itself runs inside an event loop (a notebook cell, a sync
    flow method): blocking there on the same loop would deadlock.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_await(awaitable))
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="crewgraph-tool") as pool:
        return pool.submit(asyncio.run, _await(awaitable)).result()
