"""The plan as the scheduler reads it: schedulable nodes, their predecessors, successors and joins.

Built once per run from the ``ExecutionGraph`` (plan-only nodes and ``may_call`` edges left
out), so the scheduler's per-node work is dict lookups, never a walk of the graph.
"""

from __future__ import annotations

from dataclasses import dataclass

from crewgraph.graph.execution_graph import NON_EXECUTION_EDGES, ExecutionGraph
from crewgraph.graph.node import Node

__all__ = ["RunPlan", "index_plan"]


@dataclass
class RunPlan:
    nodes: dict[str, Node]
    preds: dict[str, tuple[str, ...]]
    npreds: dict[str, int]
    succs: dict[str, tuple[tuple[str, str | None], ...]]
    join: dict[str, str]
    entry: tuple[str, ...]


def index_plan(graph: ExecutionGraph) -> RunPlan:
    """The schedulable part of ``graph``, indexed by node id."""
    g = graph.digraph
    nodes: dict[str, Node] = {}
    for nid, data in g.nodes(data=True):
        node = data["node"]
        if not node.plan_only:
            nodes[nid] = node
    preds: dict[str, list[str]] = {nid: [] for nid in nodes}
    succs: dict[str, list[tuple[str, str | None]]] = {nid: [] for nid in nodes}
    for u, v, data in g.edges(data=True):
        if data.get("kind") in NON_EXECUTION_EDGES or u not in nodes or v not in nodes:
            continue
        preds[v].append(u)
        succs[u].append((v, data.get("route")))
    join = {nid: str(g.nodes[nid].get("join", "all")) for nid in nodes}
    entry = tuple(graph.meta.get("entry") or [n for n in nodes if not preds[n]])
    return RunPlan(
        nodes=nodes,
        preds={k: tuple(v) for k, v in preds.items()},
        npreds={k: len(set(v)) for k, v in preds.items()},
        succs={k: tuple(v) for k, v in succs.items()},
        join=join,
        entry=entry,
    )
