"""ExecutionGraph: the compiled plan, a networkx DiGraph of typed nodes.

Each node object sits at ``graph.nodes[id]["node"]`` and its kind at
``graph.nodes[id]["kind"]``. Edges carry a ``kind``: ``order``, ``context``,
``guardrail``, ``convert``, ``memory``, ``listen``, ``route``, ``and``, ``or``
are execution edges; ``may_call`` edges (agent -> tool template) only document
the plan and are ignored by the scheduler, so the plan stays acyclic.
The engine builds and runs plans on :class:`~crewgraph.graph.digraph.Digraph`;
networkx is imported only when someone asks for ``.graph``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crewgraph.graph.digraph import Digraph
from crewgraph.graph.node import Node

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["NON_EXECUTION_EDGES", "ExecutionGraph"]

NON_EXECUTION_EDGES = frozenset({"may_call"})


class ExecutionGraph:
    """A compiled plan. ``.graph`` is the underlying ``networkx.DiGraph``.

    ``name`` is the crew's or flow's name; ``meta`` holds compiler facts the
    facades need (task order, the final node, outputs to collect...). The engine
    works on ``.digraph`` (the same nodes and edges without importing networkx);
    ``.graph`` builds the networkx view of that storage on first use.
    """

    def __init__(self, name: str = "crew", graph: nx.DiGraph | Digraph | None = None) -> None:
        self.name = name
        if graph is None:
            self.digraph = Digraph(name)
        elif isinstance(graph, Digraph):
            self.digraph = graph
        else:
            self.digraph = Digraph.sharing(graph)
        self.meta: dict[str, Any] = {}

    @property
    def graph(self) -> nx.DiGraph:
        """The plan as a ``networkx.DiGraph`` (shares storage with ``digraph``; networkx is
        imported on this first access, never by a kickoff)."""
        return self.digraph.to_networkx()

    # building -----------------------------------------------------------
    def add_node(self, node: Node, **attrs: Any) -> Node:
        if not self.digraph.insert(node.id, {"node": node, "kind": node.kind, "label": node.display_label, **attrs}):
            raise ValueError(f"duplicate node id {node.id!r}")
        return node

    def add_edge(self, src: str, dst: str, kind: str = "order", **attrs: Any) -> None:
        if not self.digraph.link(src, dst, {"kind": kind, **attrs}):
            end = src if src not in self.digraph else dst
            raise KeyError(f"edge {src!r} -> {dst!r}: unknown node {end!r}")

    def replace_node(self, node: Node) -> None:
        """Put ``node`` where the node with its id is (compile passes that refine nodes)."""
        self.digraph.nodes[node.id]["node"] = node

    # reading ------------------------------------------------------------
    def node(self, node_id: str) -> Node:
        try:
            node: Node = self.digraph.nodes[node_id]["node"]
        except KeyError:
            raise KeyError(f"no node {node_id!r} in graph {self.name!r}") from None
        return node

    def __contains__(self, node_id: object) -> bool:
        return node_id in self.digraph

    def __iter__(self) -> Iterator[Node]:
        for _, data in self.digraph.nodes(data=True):
            yield data["node"]

    def __len__(self) -> int:
        return self.digraph.number_of_nodes()

    def nodes_of_kind(self, kind: str) -> list[Node]:
        return [n for n in self if n.kind == kind]

    def execution_predecessors(self, node_id: str) -> list[str]:
        return [
            u
            for u, _, k in self.digraph.in_edges(node_id, data="kind")
            if k not in NON_EXECUTION_EDGES
        ]

    def execution_successors(self, node_id: str) -> list[str]:
        return [
            v
            for _, v, k in self.digraph.out_edges(node_id, data="kind")
            if k not in NON_EXECUTION_EDGES
        ]

    def edge_kind(self, src: str, dst: str) -> str:
        return str(self.digraph.edges[src, dst].get("kind", "order"))

    def execution_edges(self) -> list[tuple[str, str]]:
        """Edges the scheduler follows (``may_call`` left out)."""
        return [(u, v) for u, v, k in self.digraph.edges(data="kind") if k not in NON_EXECUTION_EDGES]

    def schedulable(self) -> list[str]:
        """Ids of nodes the scheduler runs (plan-only nodes left out), in topological order."""
        nodes = self.digraph.nodes
        return [
            n for n in self.digraph.topological_order(self.execution_edges()) if not nodes[n]["node"].plan_only
        ]

    # exporting ----------------------------------------------------------
    def to_dot(self, **options: Any) -> str:
        """Graphviz DOT text of the plan (shape and colour by node kind)."""
        from crewgraph.export import plan_to_dot

        return plan_to_dot(self, **options)

    def to_mermaid(self, **options: Any) -> str:
        """Mermaid flowchart text of the plan (a subgraph per task), for Markdown and GitHub."""
        from crewgraph.export import plan_to_mermaid

        return plan_to_mermaid(self, **options)

    def render(self, path: str | Path, format: str | None = None, **options: Any) -> Path:
        """Render the plan with Graphviz's ``dot`` to ``path`` (svg, png, pdf...)."""
        from crewgraph.export import render_dot

        return render_dot(self.to_dot(**options), path, format=format)

    def to_json(self) -> dict[str, Any]:
        """node-link JSON of the plan (nodes described, edges with kinds)."""
        from crewgraph.export import plan_to_json

        return plan_to_json(self)

    def __repr__(self) -> str:
        return f"ExecutionGraph(name={self.name!r}, nodes={len(self)}, edges={self.digraph.number_of_edges()})"
