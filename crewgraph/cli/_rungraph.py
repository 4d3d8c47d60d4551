"""Rebuild a run's executed graph from its checkpoints (for ``crewgraph plot --run``).

A finished run's RunGraph lives in memory only; what survives the process is
the checkpoint store: every finished node with its run record (status, time,
tokens, attempts). Laying those records over the plan gives the executed
graph of any run, including one that crashed (its missing nodes show as
pending, i.e. what a resume would run).
"""

from __future__ import annotations

from typing import Any

__all__ = ["run_graph_from_checkpoint"]


def _record(nid: str, data: dict[str, Any], saved: Any, inputs: dict[str, Any] | None = None) -> Any:
    from crewgraph._internal.interpolate import interpolate
    from crewgraph.graph.run_record import RunRecord
    from crewgraph.outputs import UsageMetrics

    node = data.get("node")
    rec = RunRecord(
        node_id=nid,
        kind=str(data.get("kind", "")),
        label=interpolate(str(data.get("label", nid)), inputs or {}),
        status="plan" if node is not None and node.plan_only else "pending",
    )
    if saved is None:
        return rec
    info = saved.info
    rec.label = interpolate(str(info.get("label") or rec.label), inputs or {})
    # a failed node is saved without output (restorable False): it keeps its "failed"
    rec.status = str(info.get("status") or "completed")
    rec.started_at = info.get("started_at")
    rec.duration_ms = float(info.get("duration_ms") or 0.0)
    rec.attempts = int(info.get("attempts") or 0)
    rec.executions = int(info.get("executions") or 0)
    rec.error = info.get("error")
    rec.info = dict(info.get("info") or {})
    usage = info.get("usage")
    if isinstance(usage, dict):
        try:
            rec.usage = UsageMetrics(**usage)
        except ValueError:
            pass
    return rec


def add_saved_calls(g: Any, saved: dict[str, Any]) -> None:
    """Each saved node's model and tool calls (``info["calls"]``) as spawned child records, as
    the run's own executed graph had them."""
    from crewgraph.graph.call_records import CALLS_KEY, restored_calls

    for nid, cp in saved.items():
        if nid not in g:
            continue
        for child in restored_calls(cp.info.get(CALLS_KEY)):
            if child.node_id in g:
                continue
            g.add_node(child.node_id, kind=child.kind, label=child.label, record=child)
            parent = child.parent if child.parent in g else nid
            g.add_edge(parent, child.node_id, kind="spawned")


def run_graph_from_checkpoint(plan: Any, store: Any, run_id: str) -> Any:
    """The RunGraph of ``run_id``: ``plan``'s nodes and edges with saved records, and the
    model and tool calls each node made."""
    from crewgraph.graph.digraph import Digraph
    from crewgraph.graph.run_record import RunGraph

    run_id = store.resolve_run_id(run_id)
    info = store.get_run(run_id)
    saved = {n.node_id: n for n in store.nodes(run_id, calls=True)}
    inputs = info.meta.get("inputs") if isinstance(info.meta.get("inputs"), dict) else {}
    g = Digraph(name=plan.name)
    for nid, data in plan.digraph.nodes(data=True):
        rec = _record(nid, data, saved.get(nid), inputs)
        g.add_node(nid, node=data.get("node"), kind=rec.kind, label=rec.label, record=rec)
    for u, v, data in plan.digraph.edges(data=True):
        g.add_edge(u, v, **data)
    for nid, cp in saved.items():
        if nid not in g:  # a node the current plan no longer has
            rec = _record(nid, {"kind": cp.info.get("kind", ""), "label": cp.info.get("label", nid)}, cp)
            g.add_node(nid, kind=rec.kind, label=rec.label, record=rec)
    add_saved_calls(g, saved)
    return RunGraph(run_id=run_id, name=plan.name, graph=g, status=info.status, error=info.error, inputs=inputs)
