"""Run one node of a compiled graph on its own, with a fake model and given inputs.

It uses the real scheduler machinery for that node (retries, timeouts,
spawned tool calls, events), so a node behaves here exactly as in a run.
"""

from __future__ import annotations

from typing import Any

from crewgraph._internal.sync import run_sync
from crewgraph.graph.node import Node, NodeResult
from crewgraph.graph.run_state import RunState

__all__ = ["arun_node", "run_node"]


async def arun_node(
    node: Node,
    *,
    inputs: dict[str, Any] | None = None,
    upstream: dict[str, Any] | None = None,
    llm: Any = None,
    memory: Any = None,
    state: RunState | None = None,
    trigger: str | None = None,
) -> NodeResult:
    """Async form of :func:`run_node`."""
    from crewgraph.graph.execution_graph import ExecutionGraph
    from crewgraph.runtime import Scheduler

    graph = ExecutionGraph(name=f"node:{node.id}")
    graph.add_node(node)
    scheduler = Scheduler(graph, llm=llm, memory=memory, inputs=inputs, state=state)
    try:
        return await scheduler.run_node(node, upstream=dict(upstream or {}), trigger=trigger)
    finally:
        await scheduler.bus.adrain()  # sync handlers run off the loop: they have run on return


def run_node(
    node: Node,
    *,
    inputs: dict[str, Any] | None = None,
    upstream: dict[str, Any] | None = None,
    llm: Any = None,
    memory: Any = None,
    state: RunState | None = None,
    trigger: str | None = None,
) -> NodeResult:
    """Run ``node`` (and any tool calls it spawns) and return its final NodeResult.

    ``upstream`` maps predecessor node ids to their outputs (e.g. a TaskOutput
    for a guardrail's ``source_node``); ``llm`` is usually a ``FakeLLM``.
    """
    return run_sync(
        arun_node(node, inputs=inputs, upstream=upstream, llm=llm, memory=memory, state=state, trigger=trigger)
    )
