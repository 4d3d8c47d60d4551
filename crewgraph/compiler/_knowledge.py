"""The ``knowledge_retrieval`` node of a task, when its agent or its crew has knowledge.

The node runs before the task's step and needs nothing upstream, so every
task's retrieval can start as soon as the run does.
"""

from __future__ import annotations

from typing import Any

from crewgraph.graph.execution_graph import ExecutionGraph
from crewgraph.knowledge.owners import agent_knowledge, crew_knowledge

__all__ = ["add_knowledge", "knowledge_of"]

def knowledge_of(crew: Any, agent: Any) -> list[Any]:
    """The Knowledge objects an agent's tasks search: its own, then the crew's."""
    return [k for k in (agent_knowledge(agent, crew), crew_knowledge(crew)) if k is not None]


def add_knowledge(graph: ExecutionGraph, key: str, name: str, task: Any, crew: Any, agent: Any,
                  found: list[Any] | None = None) -> str | None:
    """Add ``<key>.knowledge`` for ``task`` when there is knowledge to search; returns its id.
    ``found`` is :func:`knowledge_of` ``(crew, agent)`` when the caller keeps it per agent."""
    if found is None:
        found = knowledge_of(crew, agent)
    if not found:
        return None
    from crewgraph.knowledge import KnowledgeConfig
    from crewgraph.nodes.knowledge_retrieval import KnowledgeRetrievalNode

    config = getattr(agent, "knowledge_config", None) or KnowledgeConfig()
    node = KnowledgeRetrievalNode(
        id=f"{key}.knowledge",
        label=f"knowledge: {name}",
        task_name=name,
        agent_role=agent.role,
        query=task.description,
        knowledge=tuple(found),
        results_limit=config.results_limit,
        score_threshold=config.threshold_for([getattr(k.store, "embedder_spec", object()) for k in found]),
    )
    graph.add_node(node, task=key)
    return node.id
