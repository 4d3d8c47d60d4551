"""The compiled plan as DOT text and as node-link JSON (``ExecutionGraph.to_dot/to_json``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crewgraph.export import _dot
from crewgraph.export._jsonable import jsonable
from crewgraph.export.grouping import TaskCluster, task_clusters
from crewgraph.export.scene import Scene, SceneCluster, SceneEdge, SceneNode, scene_to_dot
from crewgraph.export.styles import KIND_ORDER, kind_style

if TYPE_CHECKING:
    from crewgraph.graph.digraph import Digraph
    from crewgraph.graph.execution_graph import ExecutionGraph

__all__ = [
    "check_rankdir",
    "cluster_title",
    "legend_entries",
    "ordered_edges",
    "plan_scene",
    "plan_to_dot",
    "plan_to_json",
    "plan_to_mermaid",
]

LABEL_WIDTH = 24
LABEL_MAX = 60
CLUSTER_TITLE_MAX = 48
_RANKDIRS = ("AUTO", "TB", "LR", "BT", "RL")


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


def legend_entries(kinds: set[str]) -> list[tuple[str, dict[str, str | int | float | None]]]:
    """One sample node per kind present, in :data:`KIND_ORDER`."""
    entries: list[tuple[str, dict[str, str | int | float | None]]] = []
    for kind in [k for k in KIND_ORDER if k in kinds] + sorted(kinds - set(KIND_ORDER)):
        style = kind_style(kind)
        entries.append(
            (
                kind,
                {
                    "label": _dot.text(kind),
                    "shape": style.shape,
                    "style": style.style,
                    "fillcolor": style.fillcolor,
                    "fontsize": 9,
                },
            )
        )
    return entries


def check_rankdir(rankdir: str) -> str:
    """``rankdir`` upper-cased; ``auto`` is TB unless the graph is wide (``Scene.direction``)."""
    if rankdir.upper() not in _RANKDIRS:
        raise ValueError(f"rankdir must be one of {', '.join(_RANKDIRS)}, not {rankdir!r}")
    return rankdir.upper()


def cluster_title(cluster: TaskCluster, inputs: dict[str, Any] | None = None) -> tuple[str, str | None]:
    """A task box's title (the task) and subtitle (the agent doing it); a run's drawing passes
    its ``inputs``, so "Task: research {topic}" reads "Task: research cats"."""
    from crewgraph._internal.interpolate import interpolate

    task = interpolate(cluster.task, inputs or {})
    title = _dot.shorten(f"Task: {task}", CLUSTER_TITLE_MAX)
    agent = interpolate(cluster.agent, inputs or {}) if cluster.agent else None
    subtitle = _dot.shorten(f"Agent: {agent}", CLUSTER_TITLE_MAX) if agent else None
    return title, subtitle


def _node_label(data: dict[str, Any], node_id: str) -> list[str]:
    node = data.get("node")
    text = getattr(node, "display_label", None) or data.get("label") or node_id
    return _dot.label_lines(str(text), width=LABEL_WIDTH, max_len=LABEL_MAX)


def plan_scene(
    graph: ExecutionGraph,
    *,
    show_tools: bool = True,
    legend: bool = False,
    title: str | None = None,
    clusters: bool = True,
) -> Scene:
    """What the plan drawing shows: each node by kind, each task's nodes in one box."""
    g = graph.digraph
    keep = {node_id for node_id, kind in g.nodes(data="kind") if show_tools or kind != "tool"}
    scene = Scene(name=graph.name, title=graph.name if title is None else title)
    found, cluster_of = task_clusters(g, keep=keep) if clusters else ([], {})
    kinds: set[str] = set()
    for node_id, data in g.nodes(data=True):
        if node_id not in keep:
            continue
        kind = str(data.get("kind", "node"))
        kinds.add(kind)
        style = kind_style(kind)
        node = SceneNode(
            id=node_id,
            kind=kind,
            rows=[("plain", line) for line in _node_label(data, node_id)],
            shape=style.shape,
            style=style.style,
            fill=style.fillcolor,
            tooltip=f"{kind}: {node_id}",
            cluster=cluster_of.get(node_id),
            members=[node_id],
        )
        if kind == "join":
            node.extra["width"] = "0.3"
        scene.nodes[node_id] = node
    for cluster in found:
        heading, subtitle = cluster_title(cluster)
        scene.clusters.append(SceneCluster(cluster.key, cluster.name, heading, subtitle, list(cluster.nodes)))
    for u, v, data in ordered_edges(g, keep):
        label = data.get("label")
        scene.edges.append(SceneEdge(u, v, str(data.get("kind", "order")), None if label in (None, "") else str(label)))
    scene.stack_clusters()
    if legend and kinds:
        scene.legend.append(("legend", legend_entries(kinds)))
    return scene


def plan_to_dot(
    graph: ExecutionGraph,
    *,
    rankdir: str = "auto",
    show_tools: bool = True,
    legend: bool = False,
    title: str | None = None,
    clusters: bool = True,
) -> str:
    """Graphviz DOT text of the plan, top to bottom (``rankdir="auto"``: left to right when
    more than ``scene.WIDE`` tasks run side by side; or TB, LR, BT, RL).

    Shape and fill colour follow the node kind (see :mod:`crewgraph.export.styles`);
    labels are the task/method names, truncated and wrapped; each task's nodes
    (step, guardrail, conversion, memory, the tools it may call) sit in one box
    titled with the task and its agent (``clusters=False``: no boxes). ``may_call``
    edges (agent -> tool it may use) are dashed and labelled "may call"; context,
    guardrail, convert, and/or edges are labelled, route edges carry their route
    label. ``show_tools=False`` leaves the tool nodes out; ``legend=True`` adds a
    key of the kinds shown. The same graph always gives the same text.
    """
    direction = check_rankdir(rankdir)
    scene = plan_scene(graph, show_tools=show_tools, legend=legend, title=title, clusters=clusters)
    return scene_to_dot(scene, direction)


def plan_to_mermaid(
    graph: ExecutionGraph,
    *,
    rankdir: str = "TB",
    show_tools: bool = True,
    title: str | None = None,
    clusters: bool = True,
) -> str:
    """Mermaid flowchart text of the plan (same nodes, boxes and edges as :func:`plan_to_dot`)."""
    from crewgraph.export.mermaid import scene_to_mermaid

    scene = plan_scene(graph, show_tools=show_tools, title=title, clusters=clusters)
    return scene_to_mermaid(scene, scene.direction(check_rankdir(rankdir)))


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
