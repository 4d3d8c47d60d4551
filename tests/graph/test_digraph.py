"""Digraph: networkx's storage without networkx; plan.graph is a networkx view of it."""

from __future__ import annotations

import pytest
from _forkserver import run_python

from crewgraph.graph.digraph import Digraph, GraphCycleError


def _sample() -> Digraph:
    g = Digraph("demo")
    g.add_node("a", kind="x")
    g.add_node("b", kind="y")
    g.add_edge("a", "b", kind="order")
    g.add_edge("b", "c", kind="context")
    return g


def test_reads_like_networkx() -> None:
    g = _sample()
    assert list(g.nodes) == ["a", "b", "c"]
    assert g.nodes["a"] == {"kind": "x"}
    assert list(g.nodes(data="kind")) == [("a", "x"), ("b", "y"), ("c", None)]
    assert list(g.edges) == [("a", "b"), ("b", "c")]
    assert list(g.edges(data="kind")) == [("a", "b", "order"), ("b", "c", "context")]
    assert g.edges["a", "b"] == {"kind": "order"}
    assert list(g.in_edges("b", data=True)) == [("a", "b", {"kind": "order"})]
    assert list(g.out_edges("b")) == [("b", "c")]
    assert g.has_edge("a", "b") and not g.has_edge("b", "a")
    assert (g.number_of_nodes(), g.number_of_edges()) == (3, 2)


def test_networkx_view_shares_storage_both_ways() -> None:
    import networkx as nx  # here, not at module level: collecting the suite then skips networkx

    g = _sample()
    view = g.to_networkx()
    assert isinstance(view, nx.DiGraph)
    assert view.graph["name"] == "demo"
    assert sorted(view.edges(data="kind")) == [("a", "b", "order"), ("b", "c", "context")]
    assert list(nx.topological_sort(view)) == ["a", "b", "c"]
    view.add_edge("c", "d", kind="later")  # a change through networkx...
    assert g.has_edge("c", "d")  # ...is the Digraph's too
    g.add_edge("d", "e")
    assert view.has_edge("d", "e")
    assert g.to_networkx() is view


def test_wraps_an_existing_networkx_graph_without_copying() -> None:
    import networkx as nx  # here, not at module level: collecting the suite then skips networkx

    base = nx.DiGraph(name="given")
    base.add_edge("x", "y", kind="order")
    g = Digraph.sharing(base)
    assert list(g.edges(data="kind")) == [("x", "y", "order")]
    g.add_node("z")
    assert "z" in base
    assert g.to_networkx() is base


def test_topological_order_and_cycles() -> None:
    g = _sample()
    assert g.topological_order() == ["a", "b", "c"]
    assert g.find_cycle() is None
    g.add_edge("c", "a")
    assert g.find_cycle() == [("a", "b"), ("b", "c"), ("c", "a")]
    with pytest.raises(GraphCycleError, match="cycle: a -> b -> c -> a"):
        g.topological_order()
    # Only the edges asked about count (the scheduler leaves "may call" edges out).
    assert g.topological_order([("a", "b"), ("b", "c")]) == ["a", "b", "c"]


def test_a_long_chain_is_checked_without_recursion() -> None:
    g = Digraph()
    for i in range(20_000):
        g.add_edge(f"n{i}", f"n{i + 1}")
    assert g.find_cycle() is None
    assert len(g.topological_order()) == 20_001


def test_a_kickoff_does_not_import_networkx() -> None:
    code = (
        "import sys\n"
        "from crewgraph import Agent, Crew, Task\n"
        "from crewgraph.testing import FakeLLM\n"
        "a = Agent(role='R', goal='g', backstory='b', llm=FakeLLM(default='done'))\n"
        "out = Crew(agents=[a], tasks=[Task(description='d', expected_output='e', agent=a)]).kickoff()\n"
        "assert out.raw == 'done'\n"
        "assert 'networkx' not in sys.modules, 'networkx imported by a kickoff'\n"
        "assert out.graph.graph.number_of_nodes() >= 1  # asking for the networkx view loads it\n"
        "assert 'networkx' in sys.modules\n"
    )
    proc = run_python(["-c", code], timeout=60)  # a new process, forked with only crewgraph imported
    assert proc.returncode == 0, proc.stderr
