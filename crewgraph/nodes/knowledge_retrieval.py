"""``knowledge_retrieval`` node: before a task runs, find what its knowledge says about it.

The query is the task's description (with the run's inputs filled in); the
agent's knowledge is searched first, then the crew's, each for up to
``results_limit`` chunks at least ``score_threshold`` similar. The output is the
text the agent step puts in the task prompt (CrewAI's "Additional
Information: ..." block), ``""`` when nothing matched. The first retrieval of a
process indexes the sources (embedding only documents whose content changed).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, ClassVar

from crewgraph._internal.interpolate import interpolate
from crewgraph.events.knowledge_events import (
    KnowledgeQueryCompletedEvent,
    KnowledgeQueryFailedEvent,
    KnowledgeQueryStartedEvent,
    KnowledgeRetrievalCompletedEvent,
    KnowledgeRetrievalStartedEvent,
    KnowledgeSearchQueryFailedEvent,
)
from crewgraph.graph.context import NodeContext
from crewgraph.graph.node import Node, NodeResult
from crewgraph.graph.policies import RetryPolicy

__all__ = ["KnowledgeRetrievalNode", "format_knowledge"]


def format_knowledge(results: list[dict[str, Any]]) -> str:
    """CrewAI's block: ``Additional Information: `` and the chunks, best first."""
    texts = [str(r.get("content", "")).strip() for r in results if str(r.get("content", "")).strip()]
    return "Additional Information: " + "\n".join(texts) if texts else ""


@dataclass(frozen=True, kw_only=True)
class KnowledgeRetrievalNode(Node):
    """Search ``knowledge`` (Knowledge objects: the agent's, then the crew's) for the task."""

    kind: ClassVar[str] = "knowledge_retrieval"

    retry: RetryPolicy = field(default=RetryPolicy(max_attempts=2, initial_delay=0.5, max_delay=2.0))
    task_name: str
    agent_role: str = ""
    query: str
    knowledge: tuple[Any, ...]
    results_limit: int = 3
    score_threshold: float = 0.35

    async def run(self, ctx: NodeContext) -> NodeResult:
        query = interpolate(self.query, ctx.inputs)
        # the names as the run filled them in ("research cats", not "research {topic}")
        who = {"task_name": interpolate(self.task_name, ctx.inputs), "agent_role": interpolate(self.agent_role, ctx.inputs)}
        ctx.emit(KnowledgeRetrievalStartedEvent(**who))
        ctx.emit(KnowledgeQueryStartedEvent(task_prompt=query, **who))
        try:
            results = await asyncio.to_thread(self._search, query)
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
            ctx.emit(KnowledgeSearchQueryFailedEvent(query=query, error=error, **who))
            ctx.emit(KnowledgeQueryFailedEvent(error=error, **who))
            raise
        ctx.emit(KnowledgeQueryCompletedEvent(query=query, **who))
        text = format_knowledge(results)
        ctx.emit(KnowledgeRetrievalCompletedEvent(query=query, retrieved_knowledge=text, **who))
        sources = sorted({str(r.get("metadata", {}).get("source", "")) for r in results})
        info: dict[str, Any] = {"chunks": len(results), "sources": sources}
        if not results:
            info["warning"] = (f"no knowledge chunk scored {self.score_threshold} or more for this task: "
                               "the prompt got none (lower knowledge_config.score_threshold to include more)")
        return NodeResult(output=text, info=info)

    def _search(self, query: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for knowledge in self.knowledge:
            found.extend(
                knowledge.query([query], results_limit=self.results_limit, score_threshold=self.score_threshold)
            )
        return found

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(
            task=self.task_name,
            collections=[getattr(k.storage, "collection_name", "?") for k in self.knowledge],
            results_limit=self.results_limit,
            score_threshold=self.score_threshold,
        )
        return d
