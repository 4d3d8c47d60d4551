"""One run's executed graph: which ``RunGraph`` to draw, its SVG, and one node's details.

The drawing is the export package's own (``run_to_dot`` rendered by the real
``dot``), so the UI shows exactly what ``crewgraph plot --run`` writes. Where
the RunGraph comes from, best first:

1. a run this server just finished: the RunGraph the kickoff returned (it has
   every spawned tool and model call);
2. a crew run in the checkpoint store: the crew's plan (registered, or rebuilt
   from the ``module:attr`` the run recorded) with the saved run records laid
   over it (``crewgraph plot --run``'s rebuild), plus the live status of nodes
   this server sees running;
3. a flow run: the flow's plan with its journaled methods marked completed and
   the method waiting for an answer marked paused;
4. no plan can be had (a crew nobody registered): the saved nodes alone.
"""

from __future__ import annotations

import tempfile
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from crewgraph.checkpoint.location import Location
from crewgraph.graph.digraph import Digraph
from crewgraph.graph.run_record import RunGraph, RunRecord

__all__ = ["SvgCache", "build_run_graph", "node_details", "render_svg"]

_LIVE = frozenset({"running", "failed", "skipped", "completed", "restored"})


def _overlay(run_graph: RunGraph, statuses: dict[str, str]) -> None:
    """Live statuses from the bus onto records the store does not have yet."""
    g = run_graph.digraph
    for nid, status in statuses.items():
        if nid in g and status in _LIVE:
            rec: RunRecord = g.nodes[nid]["record"]
            if rec.status in ("pending", "plan") or status == "failed":
                rec.status = status


def _saved_only(run: dict[str, Any], saved: dict[str, Any]) -> RunGraph:
    from crewgraph.cli._rungraph import _record, add_saved_calls

    g = Digraph(name=run["name"])
    previous = None
    for nid, cp in saved.items():
        rec = _record(nid, {"kind": cp.info.get("kind", ""), "label": cp.info.get("label", nid)}, cp)
        g.add_node(nid, kind=rec.kind, label=rec.label, record=rec)
        if previous is not None:
            g.add_edge(previous, nid, kind="order")
        previous = nid
    add_saved_calls(g, saved)
    return RunGraph(run_id=run["run_id"], name=run["name"], graph=g, status=run["status"], error=run["error"],
                    inputs=run.get("inputs"))


def _crew_graph(run: dict[str, Any], db: Location, registry: Any) -> RunGraph:
    from crewgraph.checkpoint.location import open_checkpoint_store
    from crewgraph.cli._errors import UserError
    from crewgraph.cli._rungraph import run_graph_from_checkpoint
    from crewgraph.errors import CrewGraphError
    from crewgraph.ui._runs import saved_nodes

    try:
        found = registry.for_run(run["name"], run.get("factory"))
        plan = found.obj.compile(run["inputs"]) if run["inputs"] else found.obj.compile()
    except (UserError, CrewGraphError, ImportError, ValueError):
        return _saved_only(run, saved_nodes(db, run["run_id"], calls=True))
    with open_checkpoint_store(db) as store:
        rg: RunGraph = run_graph_from_checkpoint(plan, store, run["run_id"])
    waiting = {p.get("node") for p in run["pending"]}
    for nid in waiting & set(rg.digraph.nodes):
        rg.record(str(nid)).status = "paused"  # a human_input review: saved as pending, not as a node
    return rg


def _flow_graph(run: dict[str, Any], flow_db: Location) -> RunGraph | None:
    from crewgraph.flow._resume import load_flow_class
    from crewgraph.ui._runs import open_flow_store

    try:
        plan = load_flow_class(dict(run.get("flow") or {}))().compile()
    except Exception:  # a flow class that no longer imports: no plan to draw on
        return None
    steps = [m for m, _ in open_flow_store(flow_db).load_steps(run["run_id"])]
    waiting = {p["method"] for p in run["pending"]}
    g = Digraph(name=plan.name)
    for nid, data in plan.digraph.nodes(data=True):
        node = data.get("node")
        method = getattr(node, "method", None) or nid
        rec = RunRecord(node_id=nid, kind=str(data.get("kind", "")), label=str(data.get("label", nid)))
        rec.executions = steps.count(str(method))
        if rec.executions:
            rec.status = "completed"
        elif method in waiting or nid in waiting:
            rec.status = "paused"
        g.add_node(nid, node=node, kind=rec.kind, label=rec.label, record=rec)
    for u, v, data in plan.digraph.edges(data=True):
        g.add_edge(u, v, **data)
    return RunGraph(run_id=run["run_id"], name=plan.name, graph=g, status=run["status"], error=run["error"],
                    inputs=run.get("inputs"))


def build_run_graph(run: dict[str, Any], db: Location, flow_db: Location, registry: Any, live: Any) -> RunGraph:
    """The RunGraph to draw for ``run`` (a summary from ``crewgraph.ui._runs``)."""
    job = live.job_for(run["run_id"])
    if job is not None and job.done.is_set() and job.run_graph is not None:
        return job.run_graph
    rg: RunGraph | None
    if run["store"] == "memory":  # nothing stored it: what the job saw, or an empty graph while it runs
        rg = RunGraph(run_id=run["run_id"], name=run["name"], graph=Digraph(run["name"]), status=run["status"])
    elif run["store"] == "flows":
        rg = _flow_graph(run, flow_db)
        if rg is None:
                rg = RunGraph(run_id=run["run_id"], name=run["name"], graph=Digraph(run["name"]), status=run["status"])
    else:
        rg = _crew_graph(run, db, registry)
    trace = live.trace(run["run_id"])
    if trace is not None:
        _overlay(rg, trace.statuses())
    return rg


def render_svg(run_graph: RunGraph) -> str:
    """The executed graph as SVG text, drawn by Graphviz's ``dot``."""
    from crewgraph.export import render_dot, run_to_dot

    with tempfile.TemporaryDirectory(prefix="crewgraph-ui-") as tmp:
        return render_dot(run_to_dot(run_graph), Path(tmp) / "run.svg").read_text(encoding="utf-8")


class SvgCache:
    """Drawings by a key that changes whenever the run does (so ``dot`` runs once per change)."""

    def __init__(self, size: int = 64) -> None:
        self._items: OrderedDict[tuple[Any, ...], str] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, key: tuple[Any, ...]) -> str | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: tuple[Any, ...], svg: str) -> None:
        with self._lock:
            self._items[key] = svg
            while len(self._items) > self._size:
                self._items.popitem(last=False)


def _call(rec: RunRecord) -> dict[str, Any]:
    """A model call's child record as the panel's ``llm_calls`` entry (what RunTrace keeps)."""
    detail = rec.detail or {}
    return {
        "model": rec.info.get("model"), "messages": detail.get("messages"), "tools": rec.info.get("tools") or [],
        "response": detail.get("response"), "tool_calls": rec.info.get("tool_calls") or [],
        "tokens": rec.info.get("total_tokens"), "duration_ms": round(rec.duration_ms, 3),
        "finish_reason": detail.get("finish_reason"), "error": rec.error,
    }


def recorded_calls(run_graph: RunGraph, node_id: str) -> dict[str, Any]:
    """What the executed graph's records say about ``node_id``'s calls, in RunTrace's shape: the
    model calls of a step (its ``.llm<n>`` children), one model call, or a tool call's arguments
    and result. These records come from the checkpoint store (any run, whoever started it) or
    from a finished run's own RunGraph; empty when they hold no texts."""
    g = run_graph.digraph
    if node_id not in g:
        return {}
    rec = run_graph.record(node_id)
    if rec.kind == "llm":
        if not rec.detail:
            return {}
        call = _call(rec)
        return {"llm_calls": [call], "output_preview": call["response"]}
    found: dict[str, Any] = {}
    children = [g.nodes[c]["record"] for c in g.successors(node_id)
                if g.edges[node_id, c].get("kind") == "spawned"]
    calls = [_call(c) for c in children if c.kind == "llm" and c.detail]
    if calls:
        found["llm_calls"] = calls
    if rec.parent is not None and rec.detail and "output" in rec.detail:
        from crewgraph.graph.call_records import clip

        found["output_preview"] = clip(rec.detail["output"])
        if rec.kind == "tool":
            found.update(tool_name=rec.info.get("tool"), tool_args=rec.info.get("args"),
                         tool_output=found["output_preview"])
    return found


def node_details(run_graph: RunGraph, node_id: str, trace: dict[str, Any], output: tuple[bool, Any],
                 live: bool | None = None) -> dict[str, Any]:
    """What the side panel shows for one node: its record, prompt, output, tool call, errors, retries.
    ``live``: whether ``trace`` came from this server's bus (default: whether there is one)."""
    from crewgraph.graph.call_records import clip

    rec: RunRecord | None = run_graph.record(node_id) if node_id in run_graph.digraph else None
    data: dict[str, Any] = rec.to_json() if rec is not None else {"id": node_id, "status": trace.get("status")}
    data["info"] = clip(data.get("info") or {})
    calls = trace.get("llm_calls") or []
    last = calls[-1] if calls else {}
    data["prompt"] = last.get("messages")
    data["llm_calls"] = calls
    found, value = output
    if found:
        data["output"] = clip(value)
    elif trace.get("output_preview") is not None:
        data["output"] = trace["output_preview"]
    elif rec is not None and rec.kind == "tool" and trace.get("tool_output") is not None:
        data["output"] = trace["tool_output"]
    else:
        data["output"] = None
    info = rec.info if rec is not None else {}
    data["tool"] = trace.get("tool_name") or info.get("tool") or info.get("tool_name")
    data["tool_args"] = trace.get("tool_args", info.get("args"))
    if trace.get("error") and not data.get("error"):
        data["error"] = trace["error"]
    data["retry_log"] = trace.get("retries") or []
    data["recorded_by_this_server"] = bool(trace) if live is None else live
    data["calls_recorded"] = bool(calls) or trace.get("tool_output") is not None
    return data
