"""``Digraph``: the part of ``networkx.DiGraph`` the engine uses, without importing networkx.

``import networkx`` loads every algorithm it ships (~100 ms of CPU, the largest part
of a first kickoff). Compiling and running a graph needs only nodes and edges with
attribute dicts, so the engine keeps them here and builds the ``networkx.DiGraph``
users get from ``plan.graph`` / ``run_graph.graph`` on first access.

The storage layout is networkx's own (``_node``, ``_succ``, ``_pred`` and the
``graph`` attribute dict), and ``to_networkx()`` hands those very dicts to the
networkx graph: the two are one graph, so a change through either is seen by both.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from itertools import pairwise
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["Digraph", "GraphCycleError", "find_cycle"]

Attrs = dict[str, Any]


class GraphCycleError(ValueError):
    """The graph has a directed cycle; ``edges`` lists it as (u, v) pairs, in order."""

    def __init__(self, edges: list[tuple[str, str]]) -> None:
        super().__init__("cycle: " + " -> ".join([*(u for u, _ in edges), edges[0][0]]))
        self.edges = edges


class Digraph:
    """Nodes and directed edges with attribute dicts (networkx's layout, none of its imports)."""

    __slots__ = ("_node", "_nx", "_pred", "_succ", "graph")

    def __init__(self, name: str | None = None) -> None:
        self.graph: Attrs = {} if name is None else {"name": name}
        self._node: dict[str, Attrs] = {}
        self._succ: dict[str, dict[str, Attrs]] = {}
        self._pred: dict[str, dict[str, Attrs]] = {}
        self._nx: Any = None

    @classmethod
    def sharing(cls, graph: nx.DiGraph) -> Digraph:
        """A Digraph over an existing networkx graph's storage (no copy)."""
        light = cls()
        light.graph, light._node = graph.graph, graph._node
        light._succ, light._pred = graph._succ, graph._pred
        light._nx = graph
        return light

    # building --------------------------------------------------------------
    def add_node(self, node_id: str, **attrs: Any) -> None:
        if node_id in self._node:
            self._node[node_id].update(attrs)
            return
        self._node[node_id] = attrs
        self._succ[node_id] = {}
        self._pred[node_id] = {}

    def add_edge(self, src: str, dst: str, **attrs: Any) -> None:
        for end in (src, dst):
            if end not in self._node:
                self.add_node(end)
        data = self._succ[src].get(dst)
        if data is None:
            data = self._succ[src][dst] = {}
            self._pred[dst][src] = data
        data.update(attrs)

    def insert(self, node_id: str, attrs: Attrs) -> bool:
        """Add a node that is not in the graph yet, with ``attrs`` as its attribute dict (kept,
        not copied); False, and nothing changed, if it is there already. The compiler's way in:
        one dict, no keyword packing."""
        if node_id in self._node:
            return False
        self._node[node_id] = attrs
        self._succ[node_id] = {}
        self._pred[node_id] = {}
        return True

    def link(self, src: str, dst: str, attrs: Attrs) -> bool:
        """An edge between two nodes already in the graph: ``attrs`` becomes a new edge's
        attribute dict (kept, not copied) or updates an existing edge's; False, and nothing
        changed, if either end is missing."""
        succ = self._succ
        out = succ.get(src)
        if out is None or dst not in succ:
            return False
        data = out.get(dst)
        if data is None:
            out[dst] = self._pred[dst][src] = attrs
        else:
            data.update(attrs)
        return True

    # reading ---------------------------------------------------------------
    def __contains__(self, node_id: object) -> bool:
        return node_id in self._node

    def __iter__(self) -> Iterator[str]:
        return iter(self._node)

    def __len__(self) -> int:
        return len(self._node)

    def number_of_nodes(self) -> int:
        return len(self._node)

    def number_of_edges(self) -> int:
        return sum(len(out) for out in self._succ.values())

    def has_edge(self, src: str, dst: str) -> bool:
        return dst in self._succ.get(src, ())

    @property
    def nodes(self) -> _Nodes:
        return _Nodes(self._node)

    @property
    def edges(self) -> _Edges:
        return _Edges(self._succ)

    def successors(self, node_id: str) -> Iterator[str]:
        return iter(self._succ[node_id])

    def predecessors(self, node_id: str) -> Iterator[str]:
        return iter(self._pred[node_id])

    def out_edges(self, node_id: str, data: bool | str = False, default: Any = None) -> Iterator[Any]:
        for dst, attrs in self._succ[node_id].items():
            yield _edge(node_id, dst, attrs, data, default)

    def in_edges(self, node_id: str, data: bool | str = False, default: Any = None) -> Iterator[Any]:
        for src, attrs in self._pred[node_id].items():
            yield _edge(src, node_id, attrs, data, default)

    # algorithms the engine needs -------------------------------------------
    def topological_order(self, edges: Iterable[tuple[str, str]] | None = None) -> list[str]:
        """Kahn's algorithm over ``edges`` (default: all), ties in insertion order."""
        pairs = list(edges) if edges is not None else list(self.edges)
        indegree = dict.fromkeys(self._node, 0)
        out: dict[str, list[str]] = {n: [] for n in self._node}
        for u, v in pairs:
            out[u].append(v)
            indegree[v] += 1
        ready = [n for n, d in indegree.items() if d == 0]
        order: list[str] = []
        while ready:
            nxt: list[str] = []
            for n in ready:
                order.append(n)
                for v in out[n]:
                    indegree[v] -= 1
                    if indegree[v] == 0:
                        nxt.append(v)
            ready = nxt
        if len(order) != len(self._node):
            raise GraphCycleError(self.find_cycle(pairs) or [("?", "?")])
        return order

    def find_cycle(self, edges: Iterable[tuple[str, str]] | None = None) -> list[tuple[str, str]] | None:
        """One directed cycle as a list of edges, or None; iterative DFS, linear time."""
        succ: Mapping[str, Iterable[str]] = self._succ  # every edge: the adjacency as it is, no copy
        if edges is not None:
            out: dict[str, list[str]] = {n: [] for n in self._node}
            for u, v in edges:
                out[u].append(v)
            succ = out
        path = find_cycle(succ)
        return None if path is None else list(pairwise(path))

    # networkx --------------------------------------------------------------
    def to_networkx(self) -> nx.DiGraph:
        """The ``networkx.DiGraph`` over this graph's storage (built once; shares every dict)."""
        if self._nx is None:
            import networkx as nx  # a core dependency, imported only when the view is asked for
            g = nx.DiGraph()
            g.graph = self.graph
            g._node = self._node
            g._adj = g._succ = self._succ
            g._pred = self._pred
            self._nx = g
        return self._nx


def find_cycle(succ: Mapping[str, Iterable[str]]) -> list[str] | None:
    """One cycle of the graph ``succ`` (node -> successors) as a path ``[a, b, ..., a]``, or None.

    Iterative depth-first search, linear in nodes and edges: chains of thousands of tasks or
    flow methods would overflow a recursive one.
    """
    state: dict[str, int] = {}  # 1 = on the current path, 2 = finished
    for root in succ:
        if root in state:
            continue
        path: list[str] = [root]
        iters = [iter(succ[root])]
        state[root] = 1
        while iters:
            nxt = next(iters[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                iters.pop()
            elif state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                iters.append(iter(succ.get(nxt, ())))
    return None


def _edge(src: str, dst: str, attrs: Attrs, data: bool | str, default: Any) -> Any:
    if data is False:
        return src, dst
    if data is True:
        return src, dst, attrs
    return src, dst, attrs.get(data, default)


class _Nodes:
    """``graph.nodes``: ids; ``nodes[id]`` is the attribute dict; ``nodes(data=...)``."""

    __slots__ = ("_node",)

    def __init__(self, node: dict[str, Attrs]) -> None:
        self._node = node

    def __iter__(self) -> Iterator[str]:
        return iter(self._node)

    def __len__(self) -> int:
        return len(self._node)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._node

    def __getitem__(self, node_id: str) -> Attrs:
        return self._node[node_id]

    def __call__(self, data: bool | str = False, default: Any = None) -> Iterator[Any]:
        if data is False:
            return iter(self._node)
        if data is True:
            return iter(self._node.items())
        return ((n, attrs.get(data, default)) for n, attrs in self._node.items())


class _Edges:
    """``graph.edges``: (u, v) pairs; ``edges[u, v]`` is the attribute dict; ``edges(data=...)``."""

    __slots__ = ("_succ",)

    def __init__(self, succ: dict[str, dict[str, Attrs]]) -> None:
        self._succ = succ

    def __iter__(self) -> Iterator[tuple[str, str]]:
        for u, out in self._succ.items():
            for v in out:
                yield u, v

    def __len__(self) -> int:
        return sum(len(out) for out in self._succ.values())

    def __getitem__(self, edge: tuple[str, str]) -> Attrs:
        u, v = edge
        return self._succ[u][v]

    def __call__(self, data: bool | str = False, default: Any = None) -> Iterator[Any]:
        for u, out in self._succ.items():
            for v, attrs in out.items():
                yield _edge(u, v, attrs, data, default)
