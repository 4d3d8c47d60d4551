"""The executed graph of a run as DOT text and JSON (``RunGraph.to_dot/to_json``).

Same shapes as the plan (kind), but filled by *status*: completed green,
failed red, cancelled/skipped grey, restored from a checkpoint blue, still
pending white. Each label adds what happened: duration, tokens, retries and
the first words of an error. Tool calls an agent step made appear as child
nodes joined to their parent step by bold "called" edges.

A tool call that failed under a ``warn``/``ignore`` policy *completed* as a
node (the model got the failure as its tool result and the run went on), so
its status stays ``completed``; but a failure the run survived is exactly what
a reader of the picture looks for, so such a call (``info["failed"]``) gets a
red dashed outline, a "tool failure" line with its error when the record has
one, and a ``tool_failures`` count in the JSON totals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crewgraph.export import _dot
from crewgraph.export._jsonable import jsonable
from crewgraph.export.plan import (
    LABEL_MAX,
    LABEL_WIDTH,
    check_rankdir,
    header_lines,
    legend_lines,
    ordered_edges,
)
from crewgraph.export.styles import STATUS_COLOURS, edge_style, kind_style, status_colour

if TYPE_CHECKING:
    from crewgraph.graph.digraph import Digraph
    from crewgraph.graph.run_record import RunGraph, RunRecord

__all__ = ["format_duration", "handled_failure", "run_to_dot", "run_to_json"]

_ERROR_SNIPPET = 48
_TOOLTIP_MAX = 600
_SPAWNED = "spawned"


def format_duration(ms: float) -> str:
    """``850 ms``, ``1.2 s``, ``2m 05s``: short enough to sit under a node label."""
    if ms < 1000:
        return f"{ms:.0f} ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m {rest:02d}s"


def _record(graph: Digraph, node_id: str) -> RunRecord:
    from crewgraph.graph.run_record import RunRecord

    data = graph.nodes[node_id]
    record = data.get("record")
    if isinstance(record, RunRecord):
        return record
    # A node the runtime added without a record: show it as never started.
    node = data.get("node")
    return RunRecord(
        node_id=node_id,
        kind=str(data.get("kind", getattr(node, "kind", "node"))),
        label=str(data.get("label", getattr(node, "display_label", node_id))),
    )


def _is_template(graph: Digraph, node_id: str, record: RunRecord) -> bool:
    """A plan-only tool template (never scheduled): its node says so, or failing that,
    it never ran and is reached only by "may call" edges."""
    node = graph.nodes[node_id].get("node")
    if node is not None:
        return bool(getattr(node, "plan_only", False))
    kinds = {k for _, _, k in graph.in_edges(node_id, data="kind")}
    return record.status == "pending" and record.parent is None and kinds == {"may_call"}


def _stats(record: RunRecord) -> str:
    parts = []
    if record.duration_ms > 0 and record.status not in ("pending", "restored"):
        parts.append(format_duration(record.duration_ms))
    if record.usage.total_tokens:
        parts.append(f"{record.usage.total_tokens} tok")
    retries = max(0, record.attempts - record.executions)
    if retries:
        parts.append(f"{retries} retr{'y' if retries == 1 else 'ies'}")
    return " · ".join(parts)


def handled_failure(record: RunRecord) -> str | None:
    """The error of a call that failed but was handled (its policy let the run go on):
    ``""`` when the record says it failed without saying why, None when it did not fail."""
    if record.status != "completed" or not record.info.get("failed"):
        return None
    return str(record.error or record.info.get("error") or "")


def _label(record: RunRecord) -> str:
    lines = _dot.label_lines(record.label or record.node_id, width=LABEL_WIDTH, max_len=LABEL_MAX)
    stats = _stats(record)
    if stats:
        lines.append(stats)
    handled = handled_failure(record)
    if record.status == "failed" and record.error:
        lines.append(_dot.shorten(f"error: {record.error}", _ERROR_SNIPPET))
    elif handled is not None:
        lines.append(_dot.shorten(f"tool failure: {handled}" if handled else "(tool failure)", _ERROR_SNIPPET))
    elif record.status not in ("completed", "pending"):
        lines.append(f"({record.status})")
    return "\n".join(lines)


def _tooltip(record: RunRecord) -> str:
    text = f"{record.kind} {record.node_id}: {record.status}"
    handled = handled_failure(record)
    if record.error:
        text += f"\n{record.error}"
    elif handled:
        text += f" (tool failure, handled)\n{handled}"
    elif handled is not None:
        text += " (tool failure, handled)"
    return text[:_TOOLTIP_MAX]


def _spawn_edges(graph: Digraph, keep: set[str]) -> list[tuple[str, str]]:
    """parent -> child for spawned nodes the runtime did not join by an edge itself."""
    missing = []
    for node_id in graph.nodes:
        parent = _record(graph, node_id).parent
        if (
            parent
            and parent in keep
            and node_id in keep
            and parent in graph
            and not graph.has_edge(parent, node_id)
        ):
            missing.append((parent, node_id))
    return missing


def _visible(run_graph: RunGraph, show_tools: bool, show_templates: bool) -> set[str]:
    g = run_graph.digraph
    keep = set()
    for node_id in g.nodes:
        record = _record(g, node_id)
        if record.kind == "tool" and not show_tools:
            continue
        if not show_templates and _is_template(g, node_id, record):
            continue
        keep.add(node_id)
    return keep


def _title(run_graph: RunGraph) -> str:
    title = f"{run_graph.name} · run {run_graph.run_id[:8]} · {run_graph.status}"
    if run_graph.error:
        title += "\n" + _dot.shorten(run_graph.error, 80)
    return title


def _status_legend(statuses: set[str]) -> list[str]:
    entries: list[tuple[str, dict[str, str | int | float | None]]] = [
        (
            status,
            {
                "label": status,
                "shape": "box",
                "style": "filled",
                "fillcolor": status_colour(status),
                "fontsize": 9,
            },
        )
        for status in STATUS_COLOURS
        if status in statuses
    ]
    return _dot.legend_cluster("status", "Status", entries)


def run_to_dot(
    run_graph: RunGraph,
    *,
    rankdir: str = "TB",
    show_tools: bool = True,
    show_templates: bool = False,
    legend: bool = False,
) -> str:
    """Graphviz DOT text of what a run did.

    ``show_tools=False`` hides every tool node (planned and called);
    ``show_templates=True`` also draws the plan's "may call" tool templates, which
    never run themselves (hidden by default: the calls that did happen are shown).
    ``legend=True`` adds keys for kinds and statuses.
    """
    direction = check_rankdir(rankdir)
    g = run_graph.digraph
    keep = _visible(run_graph, show_tools, show_templates)
    lines = header_lines(run_graph.name, direction, _title(run_graph))
    kinds: set[str] = set()
    statuses: set[str] = set()
    for node_id in g.nodes:
        if node_id not in keep:
            continue
        record = _record(g, node_id)
        kinds.add(record.kind)
        statuses.add(record.status)
        style = kind_style(record.kind)
        values: dict[str, str | int | float | None] = {
            "label": _label(record),
            "shape": style.shape,
            "style": style.style,
            "fillcolor": status_colour(record.status),
            "tooltip": _tooltip(record),
        }
        if record.status == "failed":
            values.update({"color": "#b02a37", "penwidth": 2})
        elif handled_failure(record) is not None:
            values.update({"color": "#b02a37", "penwidth": 2, "style": f"{style.style},dashed"})
        lines.append(_dot.node_line(node_id, values))
    for u, v, data in ordered_edges(g, keep):
        lines.append(
            _dot.edge_line(u, v, edge_style(str(data.get("kind", "order")), data.get("label")))
        )
    for parent, child in _spawn_edges(g, keep):
        lines.append(_dot.edge_line(parent, child, edge_style(_SPAWNED)))
    if legend and kinds:
        lines.extend(legend_lines(kinds))
        lines.extend(_status_legend(statuses))
    lines.append("}")
    return _dot.join_lines(lines)


def run_to_json(run_graph: RunGraph) -> dict[str, Any]:
    """The run as JSON: status and error, each node's ``RunRecord.to_json()``, the
    edges (with ``spawned`` edges from parents to the tool calls they made) and
    totals. Everything is JSON-serialisable."""
    g = run_graph.digraph
    records = [_record(g, node_id) for node_id in g.nodes]
    edges = []
    for u, v, data in ordered_edges(g):
        edge = {"source": u, "target": v, "kind": data.get("kind", "order")}
        edge.update({k: val for k, val in data.items() if k not in edge})
        edges.append(jsonable(edge))
    edges.extend(
        {"source": parent, "target": child, "kind": _SPAWNED}
        for parent, child in _spawn_edges(g, set(g.nodes))
    )
    by_status: dict[str, int] = {}
    for record in records:
        by_status[record.status] = by_status.get(record.status, 0) + 1
    return {
        "run_id": run_graph.run_id,
        "name": run_graph.name,
        "status": run_graph.status,
        "error": run_graph.error,
        "nodes": [jsonable(record.to_json()) for record in records],
        "edges": edges,
        "totals": {
            "nodes": len(records),
            "by_status": dict(sorted(by_status.items())),
            "tokens": sum(r.usage.total_tokens for r in records),
            "duration_ms": round(sum(r.duration_ms for r in records), 3),
            "retries": sum(max(0, r.attempts - r.executions) for r in records),
            "tool_failures": sum(1 for r in records if handled_failure(r) is not None),
        },
    }
