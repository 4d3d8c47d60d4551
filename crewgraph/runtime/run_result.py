"""What a run hands back: ``RunResult``, the executed graph built from its records, and the
small summaries of records (the token total, an output preview) the scheduler reports."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from crewgraph.graph.digraph import Digraph
from crewgraph.graph.execution_graph import ExecutionGraph
from crewgraph.graph.run_record import RunGraph, RunRecord
from crewgraph.outputs import UsageMetrics

__all__ = ["RunResult", "executed_graph", "preview", "sum_usage"]


@dataclass
class RunResult:
    """Outputs by node id (latest execution), the executed graph and the token total."""

    run_id: str
    outputs: dict[str, Any]
    run_graph: RunGraph
    usage: UsageMetrics
    order: list[str] = field(default_factory=list)
    paused: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Nodes that returned a pending result (waiting for input), by id: the run is paused."""


def executed_graph(plan: ExecutionGraph, records: Mapping[str, RunRecord], spawn_edges: Iterable[tuple[str, str]],
                   *, run_id: str, status: str, error: str | None, inputs: dict[str, Any]) -> RunGraph:
    """The plan's nodes and edges with each one's record, plus the spawned nodes and edges."""
    g = Digraph(plan.name)
    for nid, data in plan.digraph.nodes(data=True):
        rec = records.get(nid) or RunRecord(
            node_id=nid, kind=data["kind"], label=data.get("label", nid),
            status="plan" if data["node"].plan_only else "pending",
        )
        g.add_node(nid, node=data["node"], kind=data["kind"], label=rec.label, record=rec)
    for u, v, data in plan.digraph.edges(data=True):
        g.add_edge(u, v, **data)
    for nid, rec in records.items():
        if nid not in g:
            g.add_node(nid, kind=rec.kind, label=rec.label, record=rec)
    for u, v in spawn_edges:
        g.add_edge(u, v, kind="spawned")
    return RunGraph(run_id=run_id, name=plan.name, graph=g, status=status, error=error, inputs=inputs)


def sum_usage(parts: Iterable[UsageMetrics]) -> UsageMetrics:
    """The sum of ``parts`` as one new UsageMetrics (adding them pairwise built one per record)."""
    total = prompt = cached = completion = requests = 0
    for u in parts:
        total += u.total_tokens
        prompt += u.prompt_tokens
        cached += u.cached_prompt_tokens
        completion += u.completion_tokens
        requests += u.successful_requests
    return UsageMetrics(total_tokens=total, prompt_tokens=prompt, cached_prompt_tokens=cached,
                        completion_tokens=completion, successful_requests=requests)


def preview(output: Any, limit: int = 200) -> str | None:
    if output is None:
        return None
    text = getattr(output, "raw", None)
    if not isinstance(text, str):
        text = str(output)
    return text if len(text) <= limit else text[: limit - 3] + "..."
