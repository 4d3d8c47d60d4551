"""A drawing before it is DOT or Mermaid: nodes with their look, task clusters, rows, edges.

The plan and the executed graph are first turned into a :class:`Scene` (what
to draw: which nodes, in which task box, which calls sit side by side in a
row, which edges), then written by :func:`scene_to_dot` here or
:func:`crewgraph.export.mermaid.scene_to_mermaid`. Both writers therefore
draw the same picture, and each only knows its own syntax.

Layout rules that keep a big run readable (Graphviz ``dot``, top to bottom):

- each task is a cluster; the calls a step made sit in rows of at most
  ``row`` nodes under it, left to right in the order they happened, so 50
  calls make a block a few rows deep instead of one row 7,000 pixels wide;
- a node that follows a task (the next task's step) is ranked below *all* of
  that task's box (invisible edges from the box's last nodes), so boxes stack
  instead of spreading sideways;
- the planned nodes that follow a step inside its task (guardrail, convert)
  sit under its rows of calls;
- with ``rankdir="auto"`` (the default), more than ``WIDE`` tasks (or loose
  nodes) side by side, e.g. 200 parallel ``async_execution`` tasks, turn the
  drawing left to right: the parallel tasks stack into one tall column that a
  page shows at a readable size (zoom and scroll), not a strip 30,000 points
  wide that fits only at 2%.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from crewgraph.export import _dot
from crewgraph.export.styles import edge_style

__all__ = ["Scene", "SceneCluster", "SceneEdge", "SceneNode", "scene_to_dot"]

ROW_LEN = 5
"""Calls side by side under their step before the row wraps."""

WIDE = 8
"""Tasks (or loose nodes) side by side at one depth beyond which ``rankdir="auto"`` draws left to right."""


@dataclass
class SceneNode:
    """One drawn node. ``rows`` are ``(style, text)`` label lines (see ``_dot.html_label``);
    ``members`` the node ids it stands for (several for a collapsed run of calls)."""

    id: str
    kind: str
    rows: list[tuple[str, str]]
    shape: str
    style: str
    fill: str
    tooltip: str
    status: str | None = None
    outline: str | None = None
    penwidth: float | None = None
    cluster: str | None = None
    members: list[str] = field(default_factory=list)
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def plain_label(self) -> str:
        """The label as plain lines (for Mermaid and tests)."""
        return "\n".join(text for _, text in self.rows if text)


@dataclass
class SceneEdge:
    """``kind`` is an edge kind of the graph (context, route...), ``called`` (a step to its
    first call), ``then`` (one call to the next), or invisible, layout only: ``rank``
    (keeps ``dst`` below ``src`` without pulling it sideways) or ``align`` (pulls a step
    over the middle of its row of calls). ``tail_cluster``: drawn from that cluster's
    border (an edge leaving a task box)."""

    src: str
    dst: str
    kind: str
    label: str | None = None
    tail_cluster: str | None = None


@dataclass
class SceneCluster:
    key: str
    name: str
    title: str
    subtitle: str | None
    nodes: list[str] = field(default_factory=list)


@dataclass
class Scene:
    name: str
    title: str
    nodes: dict[str, SceneNode] = field(default_factory=dict)
    clusters: list[SceneCluster] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    edges: list[SceneEdge] = field(default_factory=list)
    legend: list[tuple[str, list[tuple[str, dict[str, str | int | float | None]]]]] = field(
        default_factory=list
    )

    def add_rows(self, parent: str, items: list[str], row: int = ROW_LEN) -> None:
        """``items`` (drawn ids, in order) under ``parent``: ``called`` edge to the first,
        ``then`` edges along each row and from each row's end to the next row's start."""
        if not items:
            return
        self.edges.append(SceneEdge(parent, items[0], "called"))
        # (no "align" edges: the step stays over its first call, so a task reads from its top left)
        for start in range(0, len(items), max(1, row)):
            chunk = items[start : start + max(1, row)]
            if len(chunk) > 1:
                self.rows.append(chunk)
        self.edges.extend(SceneEdge(a, b, "then") for a, b in itertools.pairwise(items))

    def stack_clusters(self) -> None:
        """Rank every node that follows a task below the whole task box."""
        where = {n.id: n.cluster for n in self.nodes.values()}
        inside: dict[str, set[str]] = {}
        for e in self.edges:
            if where.get(e.src) is not None and where.get(e.src) == where.get(e.dst):
                inside.setdefault(e.src, set()).add(e.dst)
        sinks: dict[str, list[str]] = {}
        for node in self.nodes.values():
            if node.cluster is not None and node.id not in inside:
                sinks.setdefault(node.cluster, []).append(node.id)
        extra: list[SceneEdge] = []
        seen: set[tuple[str, str]] = set()
        for e in self.edges:
            src_cluster = where.get(e.src)
            if e.kind in _LAYOUT_EDGES or src_cluster is None or src_cluster == where.get(e.dst):
                continue
            e.tail_cluster = src_cluster
            for sink in sinks.get(src_cluster, []):
                if sink != e.src and (sink, e.dst) not in seen:
                    seen.add((sink, e.dst))
                    extra.append(SceneEdge(sink, e.dst, "rank"))
        self.edges.extend(extra)

    def widest(self) -> int:
        """How many units (a task box, or a node in none) sit side by side at the most crowded
        depth. Depth is the longest path from a source over the drawn edges between units;
        units on a cycle (a router loop) are not counted."""
        unit = {n.id: n.cluster or n.id for n in self.nodes.values()}
        succs: dict[str, set[str]] = {}
        for e in self.edges:
            a, b = unit.get(e.src), unit.get(e.dst)
            if a is not None and b is not None and a != b and e.kind not in ("rank", "align"):
                succs.setdefault(a, set()).add(b)
        units = set(unit.values())
        incoming = dict.fromkeys(units, 0)
        for targets in succs.values():
            for b in targets:
                incoming[b] += 1
        depth = dict.fromkeys(units, 0)
        ready = [u for u in units if incoming[u] == 0]
        while ready:
            u = ready.pop()
            for b in succs.get(u, ()):
                depth[b] = max(depth[b], depth[u] + 1)
                incoming[b] -= 1
                if incoming[b] == 0:
                    ready.append(b)
        per_level: dict[int, int] = {}
        for u in units:
            if incoming[u] == 0:
                per_level[depth[u]] = per_level.get(depth[u], 0) + 1
        return max(per_level.values(), default=0)

    def direction(self, rankdir: str) -> str:
        """``rankdir``, with ``AUTO`` resolved: left to right when more than :data:`WIDE` units
        sit side by side (200 parallel tasks become one tall column a page shows at a readable
        size, instead of a strip 30,000 points wide), top to bottom otherwise."""
        if rankdir != "AUTO":
            return rankdir
        return "LR" if self.widest() > WIDE else "TB"


_LAYOUT_EDGES: dict[str, dict[str, str]] = {
    "then": {"color": "#868e96", "arrowsize": "0.6"},
    "rank": {"style": "invis", "weight": "0"},
    "align": {"style": "invis"},
}


def _edge_attrs(edge: SceneEdge, names: dict[str, str]) -> dict[str, str | int | float | None]:
    if edge.kind in _LAYOUT_EDGES:
        return dict(_LAYOUT_EDGES[edge.kind])
    values: dict[str, str | int | float | None] = dict(
        edge_style("spawned" if edge.kind == "called" else edge.kind, edge.label)
    )
    if isinstance(values.get("label"), str):
        values["label"] = _dot.text(str(values["label"]))
    if edge.tail_cluster is not None and edge.tail_cluster in names:
        # drawn from the task's box; no sideways pull, or the boxes drift into a staircase
        values["ltail"] = names[edge.tail_cluster]
        values["weight"] = 0
    return values


def _node_attrs(node: SceneNode) -> dict[str, str | int | float | None]:
    values: dict[str, str | int | float | None] = {
        "label": _dot.html_label(node.rows),
        "shape": node.shape,
        "style": node.style,
        "fillcolor": node.fill,
        "tooltip": _dot.tooltip(node.tooltip),
    }
    if node.outline is not None:
        values["color"] = node.outline
    if node.penwidth is not None:
        values["penwidth"] = node.penwidth
    values.update(node.extra)
    return values


def scene_to_dot(scene: Scene, rankdir: str) -> str:
    """The scene as DOT text (built with the ``graphviz`` package); ``rankdir`` may be ``AUTO``."""
    g = _dot.new_digraph(
        scene.name,
        {
            "rankdir": scene.direction(rankdir),
            "label": _dot.text(scene.title),
            "labelloc": "t",
            "fontname": "Helvetica",
            "fontsize": 14,
            "newrank": "true",
            "compound": "true",
            "nodesep": 0.25,
            "ranksep": 0.35,
        },
        {"fontname": "Helvetica", "fontsize": 11, "margin": "0.08,0.04"},
        {"fontname": "Helvetica", "fontsize": 9},
    )
    rows_of: dict[str | None, list[list[str]]] = {}
    for row in scene.rows:
        rows_of.setdefault(scene.nodes[row[0]].cluster, []).append(row)
    for node in scene.nodes.values():
        if node.cluster is None:
            _dot.node(g, node.id, _node_attrs(node))
    for row in rows_of.get(None, []):
        _dot.same_rank(g, row)
    for cluster in scene.clusters:
        with g.subgraph(name=cluster.name) as sub:
            rows = [("title", cluster.title)] + ([("small", cluster.subtitle)] if cluster.subtitle else [])
            sub.attr(
                label=_dot.html_label(rows, left=True),
                id=_dot.text(f"cluster:{cluster.key}"),
                style="rounded,filled",
                fillcolor="#f8f9fa",
                color="#adb5bd",
                labeljust="l",
                fontsize="11",
                margin="10",
            )
            for node_id in cluster.nodes:
                _dot.node(sub, node_id, _node_attrs(scene.nodes[node_id]))
            for row in rows_of.get(cluster.key, []):
                _dot.same_rank(sub, row)
    names = {c.key: c.name for c in scene.clusters}
    for edge in scene.edges:
        _dot.edge(g, edge.src, edge.dst, _edge_attrs(edge, names))
    for name, entries in scene.legend:
        _dot.legend_cluster(g, name, name.capitalize(), entries)
    return str(g.source)
