"""``memory_save`` node: after a task, store the facts its output contains.

The output text is split into atomic facts by the memory's LLM (the whole
text is kept as one memory if that fails) and saved, both in the memory's
background save thread (``Memory.extract_and_remember``). The job is queued
before the node first yields, so the next task's recall, even if the
scheduler starts it at the same moment, waits for it (the read barrier).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, ClassVar

from crewgraph._internal.interpolate import interpolate
from crewgraph.graph.context import NodeContext
from crewgraph.graph.node import Node, NodeResult

__all__ = ["MemorySaveNode"]


def _raw_text(output: Any) -> str:
    if output is None:
        return ""
    raw = getattr(output, "raw", output)
    return raw if isinstance(raw, str) else str(raw)


@dataclass(frozen=True, kw_only=True)
class MemorySaveNode(Node):
    """Extract facts from ``source_node``'s TaskOutput and remember them (non-blocking).

    Facts are tagged ``source="agent:<role>"``. A read-only slice saves
    nothing; a read-write slice saves into its first scope.
    """

    kind: ClassVar[str] = "memory_save"

    task_name: str
    agent_role: str = ""
    source_node: str
    memory: Any = None

    async def run(self, ctx: NodeContext) -> NodeResult:
        memory = self.memory if self.memory is not None else ctx.memory
        text = _raw_text(ctx.upstream.get(self.source_node)).strip()
        if memory is None or not text or getattr(memory, "read_only", False):
            return NodeResult(output=[], info={"facts": 0})
        role = interpolate(self.agent_role, ctx.inputs)  # as CrewAI's agent has it: filled in
        kwargs: dict[str, Any] = {"agent_role": role or None}
        if role:
            kwargs["source"] = f"agent:{role}"
        scopes = getattr(memory, "scopes", None)
        if scopes:  # a read-write MemorySlice needs an explicit scope
            kwargs["scope"] = scopes[0]
        queue = getattr(memory, "extract_and_remember", None)
        if queue is not None:
            # Queued before the first await: a recall that starts after this node
            # (the next task's) drains it, so it sees these facts (read barrier).
            facts: list[str] = await asyncio.wrap_future(queue(text, **kwargs))
        else:  # a duck-typed memory with the plain API
            facts = await asyncio.to_thread(memory.extract_memories, text)
            if facts:
                await asyncio.to_thread(memory.remember_many, facts, **kwargs)
        return NodeResult(output=facts, info={"facts": len(facts)})

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(task=self.task_name, source=self.source_node)
        return d
