"""Mermaid flowcharts of plans and runs (``to_mermaid()``), for Markdown, GitHub and wikis.

The same :class:`~crewgraph.export.scene.Scene` as the DOT drawing, written in
Mermaid's ``flowchart`` syntax: a ``subgraph`` per task, node shapes by kind,
fill by kind (plan) or status (run), thick arrows from a step to its first
call and plain arrows from call to call.

Mermaid is picky about text, so nothing from the graph reaches the output
unescaped: node ids become ``n_<id with every non-alphanumeric character as
_>`` (deduplicated; ``end`` and other keywords can no longer clash), labels
are always double-quoted with ``" # & < > ` |`` as Mermaid entity codes
(``#34;``...) and line breaks as ``<br/>``. Invisible layout edges of the DOT
drawing are left out (Mermaid lays out on its own).
"""

from __future__ import annotations

import re

from crewgraph.export._dot import clean
from crewgraph.export.scene import Scene, SceneEdge, SceneNode
from crewgraph.export.styles import edge_style

__all__ = ["mermaid_id", "mermaid_text", "scene_to_mermaid"]

_UNSAFE = frozenset('"#&<>`|[]{}')
_NON_ID = re.compile(r"[^A-Za-z0-9_]")
_WS = re.compile(r"[ \t\f\v]+")

# DOT shape -> Mermaid node brackets (open, close)
_SHAPES: dict[str, tuple[str, str]] = {
    "box": ("[", "]"),
    "ellipse": ("([", "])"),
    "diamond": ("{", "}"),
    "hexagon": ("{{", "}}"),
    "cylinder": ("[(", ")]"),
    "circle": ("((", "))"),
    "parallelogram": ("[/", "/]"),
    "doubleoctagon": ("[[", "]]"),
    "component": ("[[", "]]"),
    "note": (">", "]"),
    "folder": ("[/", "\\]"),
}


def mermaid_text(value: object) -> str:
    """``value`` safe inside a double-quoted Mermaid label: the characters Mermaid reads as
    syntax as entity codes (``#34;`` for ``"``), line breaks as ``<br/>``."""
    lines = clean(value).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    escaped = []
    for line in lines:
        flat = _WS.sub(" ", line).strip()
        escaped.append("".join(f"#{ord(ch)};" if ch in _UNSAFE else ch for ch in flat))
    return "<br/>".join(x for x in escaped if x) or " "


def mermaid_id(node_id: str, taken: dict[str, str]) -> str:
    """A Mermaid-safe id for ``node_id``, unique among ``taken`` (``{mermaid id: node id}``)."""
    base = "n_" + _NON_ID.sub("_", node_id)
    candidate, n = base, 2
    while candidate in taken and taken[candidate] != node_id:
        candidate, n = f"{base}_{n}", n + 1
    taken[candidate] = node_id
    return candidate


def _node_line(mid: str, node: SceneNode) -> str:
    opening, closing = _SHAPES.get(node.shape, ("[", "]"))
    if node.shape == "box" and "rounded" in node.style:
        opening, closing = "(", ")"
    return f'{mid}{opening}"{mermaid_text(node.plain_label)}"{closing}'


def _edge_line(src: str, dst: str, edge: SceneEdge) -> str:
    if edge.kind == "then":
        return f"{src} --> {dst}"
    if edge.kind == "called":
        return f"{src} ==> {dst}"
    label = edge_style(edge.kind, edge.label).get("label")
    arrow = "-.->" if edge.kind == "may_call" else "-->"
    if label:
        return f'{src} {arrow}|"{mermaid_text(label)}"| {dst}'
    return f"{src} {arrow} {dst}"


def _class_def(node: SceneNode) -> str:
    parts = [f"fill:{node.fill}"]
    if node.outline is not None:
        parts.append(f"stroke:{node.outline}")
    if node.penwidth is not None:
        parts.append(f"stroke-width:{node.penwidth:g}px")
    if "dashed" in node.style:
        parts.append("stroke-dasharray:5 3")
    return ",".join(parts)


def scene_to_mermaid(scene: Scene, direction: str = "TB") -> str:
    """The scene as a Mermaid ``flowchart`` (one line per statement, two-space indents)."""
    taken: dict[str, str] = {}
    ids = {node_id: mermaid_id(node_id, taken) for node_id in scene.nodes}
    title = _WS.sub(" ", clean(scene.title).replace("\n", " · ")).strip()
    title = "".join(ch for ch in title if ch not in "%{}")
    lines = [f"flowchart {direction}", f"  %% {title}"]
    clustered = {n for c in scene.clusters for n in c.nodes}
    for node_id, node in scene.nodes.items():
        if node_id not in clustered:
            lines.append("  " + _node_line(ids[node_id], node))
    for i, cluster in enumerate(scene.clusters):
        heading = cluster.title + (f"\n{cluster.subtitle}" if cluster.subtitle else "")
        lines.append(f'  subgraph task_{i}["{mermaid_text(heading)}"]')
        lines.extend("    " + _node_line(ids[n], scene.nodes[n]) for n in cluster.nodes)
        lines.append("  end")
    for edge in scene.edges:
        if edge.kind not in ("rank", "align") and edge.src in ids and edge.dst in ids:
            lines.append("  " + _edge_line(ids[edge.src], ids[edge.dst], edge))
    classes: dict[str, list[str]] = {}
    for node_id, node in scene.nodes.items():
        classes.setdefault(_class_def(node), []).append(ids[node_id])
    for i, (definition, members) in enumerate(classes.items()):
        lines.append(f"  classDef look{i} {definition}")
        lines.append(f"  class {','.join(members)} look{i}")
    return "\n".join(lines) + "\n"
