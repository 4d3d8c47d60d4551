"""The compiled plan as DOT text and as node-link JSON (``ExecutionGraph.to_dot/to_json``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crewgraph.export import _dot
from crewgraph.export._jsonable import jsonable
from crewgraph.export.styles import KIND_ORDER, edge_style, kind_style

if TYPE_CHECKING:
    from crewgraph.graph.digraph import Digraph
    from crewgraph.graph.execution_graph import ExecutionGraph

__all__ = [
    "check_rankdir",
    "header_lines",
    "legend_lines",
    "ordered_edges",
    "plan_to_dot",
    "plan_to_json",
]

LABEL_WIDTH = 24
LABEL_MAX = 60
_RANKDIRS = ("TB", "LR", "BT", "RL")


def ordered_edges(
    graph: Digraph, keep: set[str] | None = None
) -> list[tuple[str, str, dict[str, Any]]]:
    """Edges sorted by the insertion position of their ends, so the DOT text (and
    therefore the drawing) is the same every time for the same graph."""
    position = {node_id: i for i, node_id in enumerate(graph.nodes)}
    edges = [
        (u, v, data)
        for u, v, data in graph.edges(data=True)
        if keep is None or (u in keep and v in keep)
    ]
    return sorted(edges, key=lambda e: (position[e[0]], position[e[1]]))


def legend_lines(kinds: set[str]) -> list[str]:
    """A legend cluster with one sample node per kind present, in :data:`KIND_ORDER`."""
    entries: list[tuple[str, dict[str, str | int | float | None]]] = []
    for kind in [k for k in KIND_ORDER if k in kinds] + sorted(kinds - set(KIND_ORDER)):
        style = kind_style(kind)
        entries.append(
            (
                kind,
                {
                    "label": kind,
                    "shape": style.shape,
                    "style": style.style,
                    "fillcolor": style.fillcolor,
                    "fontsize": 9,
                },
            )
        )
    return _dot.legend_cluster("legend", "Legend", entries)


def header_lines(name: str, rankdir: str, title: str) -> list[str]:
    """``digraph name {`` and the graph/node/edge defaults shared by plan and run."""
    return [
        f"digraph {_dot.quote(name)} {{",
        "  graph"
        + _dot.attrs(
            {
                "rankdir": rankdir,
                "label": title,
                "labelloc": "t",
                "fontname": "Helvetica",
                "fontsize": 14,
            }
        )
        + ";",
        "  node" + _dot.attrs({"fontname": "Helvetica", "fontsize": 11}) + ";",
        "  edge" + _dot.attrs({"fontname": "Helvetica", "fontsize": 9}) + ";",
    ]


def check_rankdir(rankdir: str) -> str:
    if rankdir.upper() not in _RANKDIRS:
        raise ValueError(f"rankdir must be one of {', '.join(_RANKDIRS)}, not {rankdir!r}")
    return rankdir.upper()


def _node_label(data: dict[str, Any], node_id: str) -> str:
    node = data.get("node")
    text = getattr(node, "display_label", None) or data.get("label") or node_id
    return "\n".join(_dot.label_lines(str(text), width=LABEL_WIDTH, max_len=LABEL_MAX))


def plan_to_dot(
    graph: ExecutionGraph,
    *,
    rankdir: str = "TB",
    show_tools: bool = True,
    legend: bool = False,
    title: str | None = None,
) -> str:
    """Graphviz DOT text of the plan.

    Shape and fill colour follow the node kind (see :mod:`crewgraph.export.styles`);
    labels are the task/method names, truncated and wrapped. ``may_call`` edges
    (agent -> tool it may use) are dashed and labelled "may call"; context,
    guardrail, convert, and/or edges are labelled, route edges carry their route
    label. ``show_tools=False`` leaves the tool nodes out; ``legend=True`` adds a
    key of the kinds shown. The same graph always gives the same text.
    """
    direction = check_rankdir(rankdir)
    g = graph.digraph
    keep = {node_id for node_id, kind in g.nodes(data="kind") if show_tools or kind != "tool"}
    lines = header_lines(graph.name, direction, graph.name if title is None else title)
    kinds: set[str] = set()
    for node_id, data in g.nodes(data=True):
        if node_id not in keep:
            continue
        kind = str(data.get("kind", "node"))
        kinds.add(kind)
        style = kind_style(kind)
        values: dict[str, str | int | float | None] = {
            "label": _node_label(data, node_id),
            "shape": style.shape,
            "style": style.style,
            "fillcolor": style.fillcolor,
            "tooltip": f"{kind}: {node_id}",
        }
        if kind == "join":
            values["width"] = 0.3
        lines.append(_dot.node_line(node_id, values))
    for u, v, data in ordered_edges(g, keep):
        lines.append(
            _dot.edge_line(u, v, edge_style(str(data.get("kind", "order")), data.get("label")))
        )
    if legend and kinds:
        lines.extend(legend_lines(kinds))
    lines.append("}")
    return _dot.join_lines(lines)


def plan_to_json(graph: ExecutionGraph) -> dict[str, Any]:
    """node-link JSON of the plan, shaped like ``networkx.node_link_data(edges="edges")``:
    each node is its ``describe()`` plus ``kind`` and ``plan_only``; each edge has
    ``source``, ``target``, ``kind`` and any other attributes (a route ``label``...).
    Everything is JSON-serialisable."""
    g = graph.digraph
    nodes = []
    for node_id, data in g.nodes(data=True):
        node = data.get("node")
        described = dict(node.describe()) if node is not None else {"id": node_id}
        described.setdefault("id", node_id)
        described.setdefault("label", data.get("label", node_id))
        described["kind"] = data.get("kind", getattr(node, "kind", "node"))
        described["plan_only"] = bool(getattr(node, "plan_only", False))
        nodes.append(jsonable(described))
    edges = []
    for u, v, data in ordered_edges(g):
        edge = {"source": u, "target": v, "kind": data.get("kind", "order")}
        edge.update({k: val for k, val in data.items() if k not in edge})
        edges.append(jsonable(edge))
    return {
        "directed": True,
        "multigraph": False,
        "graph": {"name": graph.name, "meta": jsonable(graph.meta)},
        "nodes": nodes,
        "edges": edges,
    }
