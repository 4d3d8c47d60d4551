"""The executed graph of a run as DOT, Mermaid and JSON (``RunGraph.to_dot/to_mermaid/to_json``).

Same shapes as the plan (kind), but filled by *status*: completed green,
failed red, cancelled/skipped grey, restored from a checkpoint blue, paused
orange, still pending white. Each label adds what happened: duration, tokens,
retries and the first words of an error; a tool call its key argument
(:mod:`crewgraph.export.keyarg`). Each task is a box; the calls a step made
sit in rows under it, repeated ones collapsed (:mod:`crewgraph.export.grouping`,
:mod:`crewgraph.export.scene`). Outlines point at what the fill hides: thick
red on failures, thick orange on what succeeded only after retries.

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
from crewgraph.export.grouping import (
    CallGroup,
    call_groups,
    children_of,
    handled_failure,
    record_of,
    task_clusters,
)
from crewgraph.export.plan import (
    LABEL_MAX,
    LABEL_WIDTH,
    check_rankdir,
    cluster_title,
    legend_entries,
    ordered_edges,
)
from crewgraph.export.scene import ROW_LEN, Scene, SceneCluster, SceneEdge, SceneNode, scene_to_dot
from crewgraph.export.styles import (
    FAILED_OUTLINE,
    RETRIED_OUTLINE,
    STATUS_COLOURS,
    kind_style,
    status_colour,
)

if TYPE_CHECKING:
    from crewgraph.graph.digraph import Digraph
    from crewgraph.graph.run_record import RunGraph, RunRecord

__all__ = ["format_duration", "handled_failure", "run_scene", "run_to_dot", "run_to_json", "run_to_mermaid"]

_ERROR_SNIPPET = 48
_ROW_MAX = 34
_TOOLTIP_MAX = 600
_TOOLTIP_CALLS = 25
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


def _is_template(graph: Digraph, node_id: str, record: RunRecord) -> bool:
    """A plan-only tool template (never scheduled): its node says so, or failing that,
    it never ran and is reached only by "may call" edges."""
    node = graph.nodes[node_id].get("node")
    if node is not None:
        return bool(getattr(node, "plan_only", False))
    kinds = {k for _, _, k in graph.in_edges(node_id, data="kind")}
    return record.status in ("pending", "plan") and record.parent is None and kinds == {"may_call"}


def _retries(record: RunRecord) -> int:
    return record.retries


def _stats(records: list[RunRecord]) -> str:
    parts = []
    ran = [r for r in records if r.status not in ("pending", "restored", "plan")]
    duration = sum(r.duration_ms for r in ran)
    if duration >= 0.5:  # "0 ms" on every fast node is noise
        parts.append(format_duration(duration) + (" total" if len(records) > 1 else ""))
    tokens = sum(r.usage.total_tokens for r in records)
    if tokens:
        parts.append(f"{tokens} tok")
    retries = sum(_retries(r) for r in records)
    if retries:
        parts.append(f"{retries} retr{'y' if retries == 1 else 'ies'}")
    return " · ".join(parts)


def shown_status(record: RunRecord) -> str:
    """The record's status as drawn: "warning" for a completed node whose record has one."""
    return "warning" if record.status == "completed" and record.info.get("warning") else record.status


def _outcome_rows(record: RunRecord) -> list[tuple[str, str]]:
    handled = handled_failure(record)
    if record.status == "failed" and record.error:
        return [("error", _dot.shorten(f"error: {record.error}", _ERROR_SNIPPET))]
    if shown_status(record) == "warning":
        return [("small", _dot.shorten(f"warning: {record.info['warning']}", _ERROR_SNIPPET))]
    if handled is not None:
        return [("error", _dot.shorten(f"tool failure: {handled}" if handled else "(tool failure)", _ERROR_SNIPPET))]
    if record.status not in ("completed", "pending"):
        return [("small", f"({record.status})")]
    return []


def _rows(group: CallGroup, records: list[RunRecord]) -> list[tuple[str, str]]:
    first = records[0]
    if group.kind == "tool" and group.tool is not None:
        title = _dot.shorten(group.tool, _ROW_MAX - 4)
        rows = [("title", f"{title} ×{group.count}" if group.count > 1 else title)]
        args = [a for a in group.key_args if a]
        if args:
            distinct = len(dict.fromkeys(group.key_args))
            more = f" +{distinct - 1} more" if distinct > 1 else ""
            rows.append(("arg", _dot.shorten(args[0], _ROW_MAX - len(more)) + more))
    elif group.kind == "llm" and group.count > 1:
        tokens = sum(int(r.info.get("total_tokens") or 0) for r in records)
        facts = " · ".join(x for x in (str(first.info.get("model") or ""), f"{tokens} tok" if tokens else "") if x)
        rows = [("title", f"LLM ×{group.count}")] + ([("small", _dot.shorten(facts, _ROW_MAX))] if facts else [])
    elif group.kind == "llm":  # "LLM · model · 154 tok": the word as title, the facts under it
        head, _, facts = (first.label or "LLM").partition(" · ")
        rows = [("title", _dot.shorten(head, _ROW_MAX))]
        if facts:
            rows.append(("small", _dot.shorten(facts, _ROW_MAX)))
    else:
        lines = _dot.label_lines(first.label or first.node_id, width=LABEL_WIDTH, max_len=LABEL_MAX)
        rows = [("title", line) for line in lines]
    stats = _stats(records)
    if stats:
        rows.append(("small", stats))
    return rows + _outcome_rows(first)


def _tooltip(group: CallGroup, records: list[RunRecord]) -> str:
    first = records[0]
    if group.count == 1:
        text = f"{first.kind} {first.node_id}: {first.status}"
        if first.info.get("warning"):
            text += f"\nwarning: {first.info['warning']}"
        if group.key_arg:
            text += f"\n{group.tool}({group.key_arg})"
        handled = handled_failure(first)
        if first.error:
            text += f"\n{first.error}"
        elif handled:
            text += f" (tool failure, handled)\n{handled}"
        elif handled is not None:
            text += " (tool failure, handled)"
        return text[:_TOOLTIP_MAX]
    lines = [f"{group.count} {'calls of ' + group.tool if group.tool else first.kind + ' calls'} ({first.status}):"]
    for i, (record, arg) in enumerate(zip(records, group.key_args, strict=True)):
        if i == _TOOLTIP_CALLS:
            lines.append(f"… {group.count - i} more (see to_json()['groups'])")
            break
        timing = f" · {format_duration(record.duration_ms)}" if record.duration_ms else ""
        lines.append(f"{i + 1}. {arg or record.label or '()'}{timing} · {record.node_id}")
    return "\n".join(lines)


def _scene_node(graph: Digraph, group: CallGroup, cluster: str | None) -> SceneNode:
    records = [record_of(graph, m) for m in group.members]
    first = records[0]
    style = kind_style(first.kind)
    node = SceneNode(
        id=group.id,
        kind=first.kind,
        rows=_rows(group, records),
        shape=style.shape,
        style=style.style,
        fill=status_colour(shown_status(first)),
        tooltip=_tooltip(group, records),
        status=shown_status(first),
        cluster=cluster,
        members=list(group.members),
    )
    if first.status == "failed":
        node.outline, node.penwidth = FAILED_OUTLINE, 2
    elif handled_failure(first) is not None:
        node.outline, node.penwidth, node.style = FAILED_OUTLINE, 2, f"{style.style},dashed"
    elif any(_retries(r) for r in records):
        node.outline, node.penwidth = RETRIED_OUTLINE, 2
    if first.status == "plan":
        node.style = f"{style.style},dashed"
    if group.count > 1:
        node.extra["peripheries"] = "2"
    return node


def _visible(run_graph: RunGraph, show_tools: bool, show_templates: bool) -> set[str]:
    g = run_graph.digraph
    keep = set()
    for node_id in g.nodes:
        record = record_of(g, node_id)
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


def _status_entries(statuses: set[str]) -> list[tuple[str, dict[str, str | int | float | None]]]:
    entries: list[tuple[str, dict[str, str | int | float | None]]] = [
        (
            status,
            {
                "label": _dot.text(status),
                "shape": "box",
                "style": "filled",
                "fillcolor": status_colour(status),
                "fontsize": 9,
            },
        )
        for status in STATUS_COLOURS
        if status in statuses
    ]
    return entries


def run_scene(
    run_graph: RunGraph,
    *,
    show_tools: bool = True,
    show_templates: bool = False,
    legend: bool = False,
    collapse: bool = True,
    row: int = ROW_LEN,
) -> Scene:
    """What the executed-graph drawing shows (see :mod:`crewgraph.export.scene`)."""
    g = run_graph.digraph
    keep = _visible(run_graph, show_tools, show_templates)
    children = children_of(g, keep)
    parent_of = {child: parent for parent, kids in children.items() for child in kids}
    clusters, cluster_of = task_clusters(g, parent_of, keep)
    groups = {parent: call_groups(g, kids, collapse=collapse) for parent, kids in children.items()}
    drawn_as = {m: grp.id for grps in groups.values() for grp in grps for m in grp.members}
    scene = Scene(name=run_graph.name, title=_title(run_graph))
    for node_id in g.nodes:
        if node_id not in keep or drawn_as.get(node_id, node_id) != node_id:
            continue
        group = next((x for x in groups.get(parent_of.get(node_id, ""), []) if x.id == node_id), None)
        if group is None:
            group = call_groups(g, [node_id], collapse=False)[0]
        scene.nodes[node_id] = _scene_node(g, group, cluster_of.get(node_id))
    for cluster in clusters:
        heading, subtitle = cluster_title(cluster, run_graph.inputs)
        drawn = [n for n in cluster.nodes if n in scene.nodes]
        scene.clusters.append(SceneCluster(cluster.key, cluster.name, heading, subtitle, drawn))
    seen: set[tuple[str, str]] = set()
    for u, v, data in ordered_edges(g, keep):
        kind = str(data.get("kind", "order"))
        a, b = drawn_as.get(u, u), drawn_as.get(v, v)
        if kind == _SPAWNED or a == b or (a, b) in seen or v in parent_of:
            continue
        seen.add((a, b))
        label = data.get("label")
        scene.edges.append(SceneEdge(a, b, kind, None if label in (None, "") else str(label)))
    for parent, grps in groups.items():
        items = [grp.id for grp in grps]
        scene.add_rows(parent, items, row)
        # the step's own successors in its task (guardrail, convert) go under its calls
        for _, succ, kind in g.out_edges(parent, data="kind"):
            if kind != _SPAWNED and succ in scene.nodes and cluster_of.get(succ) == cluster_of.get(parent):
                scene.edges.append(SceneEdge(items[-1], succ, "rank"))
    scene.stack_clusters()
    if legend and scene.nodes:
        scene.legend.append(("legend", legend_entries({n.kind for n in scene.nodes.values()})))
        statuses = {n.status for n in scene.nodes.values() if n.status is not None}
        scene.legend.append(("status", _status_entries(statuses)))
    return scene


def run_to_dot(
    run_graph: RunGraph,
    *,
    rankdir: str = "auto",
    show_tools: bool = True,
    show_templates: bool = False,
    legend: bool = False,
    collapse: bool = True,
    row: int = ROW_LEN,
) -> str:
    """Graphviz DOT text of what a run did, top to bottom (``rankdir="auto"``: left to right
    when more than ``scene.WIDE`` tasks ran side by side, as one tall readable column; or TB,
    LR, BT, RL).

    Each task is a box holding its step and everything the step spawned; the calls
    sit in rows of ``row`` under their step, in order; consecutive calls of the same
    tool with the same argument names and outcome are one node "tool ×N" (double
    outline; ``collapse=False`` draws every call). ``show_tools=False`` hides every
    tool node (planned and called); ``show_templates=True`` also draws the plan's
    "may call" tool templates, which never run themselves (hidden by default: the
    calls that did happen are shown). ``legend=True`` adds keys for kinds and statuses.
    """
    direction = check_rankdir(rankdir)
    scene = run_scene(
        run_graph, show_tools=show_tools, show_templates=show_templates, legend=legend, collapse=collapse, row=row
    )
    return scene_to_dot(scene, direction)


def run_to_mermaid(
    run_graph: RunGraph,
    *,
    rankdir: str = "TB",
    show_tools: bool = True,
    show_templates: bool = False,
    collapse: bool = True,
) -> str:
    """Mermaid flowchart text of what a run did (the same picture as :func:`run_to_dot`)."""
    from crewgraph.export.mermaid import scene_to_mermaid

    scene = run_scene(run_graph, show_tools=show_tools, show_templates=show_templates, collapse=collapse)
    return scene_to_mermaid(scene, scene.direction(check_rankdir(rankdir)))


def _spawn_edges(graph: Digraph) -> list[tuple[str, str]]:
    """parent -> child for spawned nodes the runtime did not join by an edge itself."""
    missing = []
    for node_id in graph.nodes:
        parent = record_of(graph, node_id).parent
        if parent and parent in graph and not graph.has_edge(parent, node_id):
            missing.append((parent, node_id))
    return missing


def run_to_json(run_graph: RunGraph) -> dict[str, Any]:
    """The run as JSON: status and error, each node's ``RunRecord.to_json()`` (plus the
    ``cluster`` it is drawn in and the node it is ``drawn_as``), the edges (with
    ``spawned`` edges from parents to the tool calls they made), the task ``clusters``,
    the collapsed call ``groups`` (every member listed) and totals. Everything is
    JSON-serialisable."""
    g = run_graph.digraph
    everything = set(g.nodes)
    records = [record_of(g, node_id) for node_id in g.nodes]
    children = children_of(g, everything)
    parent_of = {child: parent for parent, kids in children.items() for child in kids}
    clusters, cluster_of = task_clusters(g, parent_of)
    groups = [grp for kids in children.values() for grp in call_groups(g, kids) if grp.count > 1]
    drawn_as = {m: grp.id for grp in groups for m in grp.members}
    nodes = []
    for record in records:
        entry = jsonable(record.to_json())
        key = cluster_of.get(record.node_id)
        entry["cluster"] = None if key is None else f"cluster:{key}"
        entry["drawn_as"] = drawn_as.get(record.node_id, record.node_id)
        nodes.append(entry)
    edges = []
    for u, v, data in ordered_edges(g):
        edge = {"source": u, "target": v, "kind": data.get("kind", "order")}
        edge.update({k: val for k, val in data.items() if k not in edge})
        edges.append(jsonable(edge))
    edges.extend({"source": parent, "target": child, "kind": _SPAWNED} for parent, child in _spawn_edges(g))
    by_status: dict[str, int] = {}
    for record in records:
        by_status[record.status] = by_status.get(record.status, 0) + 1
    return {
        "run_id": run_graph.run_id,
        "name": run_graph.name,
        "status": run_graph.status,
        "error": run_graph.error,
        "nodes": nodes,
        "edges": edges,
        "clusters": [c.to_json() for c in clusters],
        "groups": [jsonable(grp.to_json()) for grp in groups],
        "totals": {
            "nodes": len(records),
            "by_status": dict(sorted(by_status.items())),
            "tokens": sum(r.usage.total_tokens for r in records),
            "duration_ms": round(sum(r.duration_ms for r in records), 3),
            "retries": sum(_retries(r) for r in records),
            "tool_failures": sum(1 for r in records if handled_failure(r) is not None),
            "warnings": [{"node": r.node_id, "warning": str(r.info["warning"])}
                         for r in records if shown_status(r) == "warning"],
        },
    }
