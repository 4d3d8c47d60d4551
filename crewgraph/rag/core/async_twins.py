"""The async half of a vector-store client, for clients whose library is synchronous.

CrewAI's ``BaseClient`` has an ``a``-prefixed twin of every operation. The Qdrant and ChromaDB
libraries crewgraph drives are blocking, so each twin runs its sync operation in a worker
thread: written once here, so the clients hold only what differs between the stores.
"""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["ThreadedAsyncTwins"]


class ThreadedAsyncTwins:
    """``acreate_collection``, ``aget_or_create_collection``, ``aadd_documents``, ``asearch``,
    ``adelete_collection`` and ``areset``, each running the sync method off the event loop."""

    async def _off_loop(self, operation: str, **kwargs: Any) -> Any:
        """Run the client's sync ``operation`` in a worker thread (each client defines it)."""
        method = getattr(self, operation)
        return await asyncio.to_thread(lambda: method(**kwargs))

    async def acreate_collection(self, **kwargs: Any) -> None:
        await self._off_loop("create_collection", **kwargs)

    async def aget_or_create_collection(self, **kwargs: Any) -> Any:
        return await self._off_loop("get_or_create_collection", **kwargs)

    async def aadd_documents(self, **kwargs: Any) -> None:
        await self._off_loop("add_documents", **kwargs)

    async def asearch(self, **kwargs: Any) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = await self._off_loop("search", **kwargs)
        return result

    async def adelete_collection(self, **kwargs: Any) -> None:
        await self._off_loop("delete_collection", **kwargs)

    async def areset(self) -> None:
        await self._off_loop("reset")
