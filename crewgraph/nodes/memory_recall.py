"""``memory_recall`` node: before a task runs, recall what memory knows about it.

The output is a plain text block (one ``- memory`` line per match, ``""`` when
there is nothing) that the agent step puts under "Relevant memories". The
recall is shallow (one embedding, one filtered search, no LLM), so it adds
milliseconds, not model calls, to each task.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any, ClassVar

from crewgraph._internal.interpolate import interpolate
from crewgraph.events.memory_events import (
    MemoryRetrievalCompletedEvent,
    MemoryRetrievalFailedEvent,
    MemoryRetrievalStartedEvent,
)
from crewgraph.graph.context import NodeContext
from crewgraph.graph.node import Node, NodeResult

__all__ = ["MemoryRecallNode", "format_memories"]


def format_memories(matches: list[Any]) -> str:
    """``- content`` per match, best first (scores stay out of the prompt)."""
    return "\n".join(f"- {m.record.content}" for m in matches)


@dataclass(frozen=True, kw_only=True)
class MemoryRecallNode(Node):
    """Recall memories relevant to ``query`` (the task description, interpolated).

    ``memory`` is the agent's own Memory/MemoryScope/MemorySlice; without one
    the crew's (``ctx.memory``) is used; with neither the output is ``""``.
    """

    kind: ClassVar[str] = "memory_recall"

    task_name: str
    query: str
    memory: Any = None
    limit: int = 5

    async def run(self, ctx: NodeContext) -> NodeResult:
        memory = self.memory if self.memory is not None else ctx.memory
        if memory is None:
            return NodeResult(output="", info={"matches": 0})
        query = interpolate(self.query, ctx.inputs)
        task_name = interpolate(self.task_name, ctx.inputs)  # the name as the run filled it in
        if ctx.wants(MemoryRetrievalStartedEvent):
            ctx.emit(MemoryRetrievalStartedEvent(task_name=task_name))
        start = time.perf_counter()
        try:
            matches = await asyncio.to_thread(memory.recall, query, limit=self.limit, depth="shallow")
        except Exception as exc:
            if ctx.wants(MemoryRetrievalFailedEvent):
                ctx.emit(MemoryRetrievalFailedEvent(task_name=task_name, error=f"{type(exc).__name__}: {exc}"))
            raise
        content = format_memories(list(matches))
        elapsed = (time.perf_counter() - start) * 1000
        if ctx.wants(MemoryRetrievalCompletedEvent):
            ctx.emit(MemoryRetrievalCompletedEvent(task_name=task_name, memory_content=content,
                                                   retrieval_time_ms=elapsed))
        info: dict[str, Any] = {"matches": len(matches)}
        if not matches and _is_empty(memory):
            info["warning"] = "memory is empty: nothing to recall"
        return NodeResult(output=content, info=info)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(task=self.task_name, limit=self.limit)
        return d


def _is_empty(memory: Any) -> bool:
    """Whether the memory holds no record at all (a scope or slice: its whole memory)."""
    inner = getattr(memory, "memory", memory)
    try:
        return int(inner.storage_backend.count()) == 0
    except Exception:  # a memory without a countable store says nothing either way
        return False
