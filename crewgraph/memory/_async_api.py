"""``Memory``'s async forms and ``reset_all``, with CrewAI's parameters (a mixin of ``Memory``).

The async forms run the blocking call in a worker thread, so the event loop keeps running while
a save embeds and analyses or a recall searches.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from crewgraph.memory.types import MemoryMatch, MemoryRecord

__all__ = ["AsyncMemoryMixin"]


class AsyncMemoryMixin:
    """``aremember``, ``aremember_many``, ``arecall`` and ``reset_all`` for ``Memory``."""

    async def aremember(self, content: str, scope: str | None = None, categories: list[str] | None = None,
                        metadata: dict[str, Any] | None = None, importance: float | None = None,
                        source: str | None = None, private: bool = False, **kwargs: Any) -> MemoryRecord | None:
        """``remember`` in a worker thread."""
        me: Any = self
        return await asyncio.to_thread(me.remember, content, scope, categories, metadata, importance, source,
                                       private, **kwargs)

    async def aremember_many(self, contents: list[str], scope: str | None = None, categories: list[str] | None = None,
                             metadata: dict[str, Any] | None = None, importance: float | None = None,
                             source: str | None = None, private: bool = False, agent_role: str | None = None,
                             **kwargs: Any) -> list[MemoryRecord]:
        """``remember_many`` (it queues the save and returns at once, as the sync form)."""
        me: Any = self
        result: list[MemoryRecord] = me.remember_many(contents, scope, categories, metadata, importance, source,
                                                      private, agent_role, **kwargs)
        return result

    async def arecall(self, query: str, scope: str | None = None, categories: list[str] | None = None,
                      limit: int = 10, depth: Literal["shallow", "deep"] = "deep", source: str | None = None,
                      include_private: bool = False) -> list[MemoryMatch]:
        """``recall`` in a worker thread."""
        me: Any = self
        return await asyncio.to_thread(me.recall, query, scope, categories, limit, depth, source, include_private)

    def reset_all(self) -> None:
        """Delete every memory of the store (also outside this memory's ``root_scope``), as CrewAI's."""
        me: Any = self
        me.drain_writes()
        me.storage_backend.reset(None)
