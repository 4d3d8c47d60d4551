"""Crew -> ExecutionGraph: node kinds, edges, and every validation error naming its task."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from pydantic import BaseModel, ValidationError

from crewgraph import Agent, CompileError, Crew, CrewGraphError, Process, Task
from crewgraph.tools import tool

if TYPE_CHECKING:
    import networkx as nx


@tool("Search")
def search(query: str) -> str:
    """Search the web for a query."""
    return query


class Report(BaseModel):
    title: str


def good(output: object) -> tuple[bool, object]:
    return True, output


@pytest.fixture
def agents() -> tuple[Agent, Agent]:
    return (
        Agent(role="Researcher", goal="research", backstory="b", tools=[search]),
        Agent(role="Writer", goal="write", backstory="b"),
    )


def kinds(g: nx.DiGraph) -> dict[str, str]:
    return {n: d["kind"] for n, d in g.nodes(data=True)}


def test_graph_has_typed_nodes_and_edges(agents: tuple[Agent, Agent]) -> None:
    import networkx as nx  # here, not at module level: collecting the suite then skips networkx

    r, w = agents
    t1 = Task(name="research", description="Research", expected_output="notes", agent=r)
    t2 = Task(name="write", description="Write", expected_output="post", agent=w,
              output_pydantic=Report, guardrail=good)
    plan = Crew(agents=[r, w], tasks=[t1, t2]).compile()
    g = plan.graph
    assert isinstance(g, nx.DiGraph)
    assert kinds(g) == {
        "t1_research.agent": "agent_step",
        "t1_research.tool.search": "tool",
        "t2_write.agent": "agent_step",
        "t2_write.convert": "convert",
        "t2_write.guardrail1": "guardrail",
    }
    for nid in g.nodes:
        assert g.nodes[nid]["node"].id == nid
    edges = {(u, v): k for u, v, k in g.edges(data="kind")}
    assert edges == {
        ("t1_research.agent", "t1_research.tool.search"): "may_call",
        ("t1_research.agent", "t2_write.agent"): "context",
        ("t2_write.agent", "t2_write.convert"): "convert",
        ("t2_write.convert", "t2_write.guardrail1"): "guardrail",
    }
    assert nx.is_directed_acyclic_graph(g)
    assert plan.meta["final"] == "t2_write.guardrail1"


def test_sequential_async_tasks_overlap_until_needed(agents: tuple[Agent, Agent]) -> None:
    r, w = agents
    a1 = Task(name="a1", description="A1", expected_output="x", agent=r, async_execution=True)
    a2 = Task(name="a2", description="A2", expected_output="x", agent=r, async_execution=True)
    s = Task(name="s", description="S", expected_output="x", agent=w)
    g = Crew(agents=[r, w], tasks=[a1, a2, s]).compile().graph
    assert not g.has_edge("t1_a1.agent", "t2_a2.agent")
    assert g.has_edge("t1_a1.agent", "t3_s.agent") and g.has_edge("t2_a2.agent", "t3_s.agent")


def test_parallel_process_orders_only_by_context(agents: tuple[Agent, Agent]) -> None:
    r, w = agents
    t1 = Task(name="one", description="1", expected_output="x", agent=r)
    t2 = Task(name="two", description="2", expected_output="x", agent=r)
    t3 = Task(name="three", description="3", expected_output="x", agent=w, context=[t1])
    g = Crew(agents=[r, w], tasks=[t1, t2, t3], process=Process.parallel).compile().graph
    execution = [(u, v) for u, v, k in g.edges(data="kind") if k != "may_call"]
    assert execution == [("t1_one.agent", "t3_three.agent")]


def test_explicit_empty_context_sees_nothing_but_keeps_order(agents: tuple[Agent, Agent]) -> None:
    r, _ = agents
    t1 = Task(name="one", description="1", expected_output="x", agent=r)
    t2 = Task(name="two", description="2", expected_output="x", agent=r, context=[])
    plan = Crew(agents=[r], tasks=[t1, t2]).compile()
    assert plan.graph.edges["t1_one.agent", "t2_two.agent"]["kind"] == "order"
    assert plan.node("t2_two.agent").context_nodes == ()  # type: ignore[attr-defined]


def test_cycle_through_context_is_named(agents: tuple[Agent, Agent]) -> None:
    r, _ = agents
    t1 = Task(name="one", description="1", expected_output="x", agent=r)
    t2 = Task(name="two", description="2", expected_output="x", agent=r, context=[t1])
    t1.context = [t2]
    with pytest.raises(CompileError, match=r"cycle through `context`: task 'one' -> task 'two' -> task 'one'"):
        Crew(agents=[r], tasks=[t1, t2], process=Process.parallel).compile()


def test_context_task_not_in_crew(agents: tuple[Agent, Agent]) -> None:
    r, _ = agents
    outside = Task(name="outside", description="o", expected_output="x", agent=r)
    t1 = Task(name="one", description="1", expected_output="x", agent=r, context=[outside])
    with pytest.raises(CompileError) as info:
        Crew(agents=[r], tasks=[t1]).compile()
    assert info.value.task == "task 'one'"
    assert "'outside' in its context, but that task is not in the crew" in str(info.value)


def test_task_without_agent_in_sequential_crew_is_a_definition_error(agents: tuple[Agent, Agent]) -> None:
    r, _ = agents
    with pytest.raises(ValidationError, match=r"Agent is missing in task #1 \('Do it'\)") as info:
        Crew(agents=[r], tasks=[Task(description="Do it", expected_output="x")])
    assert info.value.errors()[0]["loc"] == ("tasks", 0, "agent")
    assert info.value.errors()[0]["type"] == "missing_agent_in_task"


def test_missing_placeholders_are_named(agents: tuple[Agent, Agent]) -> None:
    r, _ = agents
    t = Task(name="t", description="About {topic} in {year}", expected_output="x", agent=r)
    crew = Crew(agents=[r], tasks=[t])
    crew.compile()  # without inputs: placeholders are not checked
    with pytest.raises(CompileError, match=r"task 't' uses \{year\} but the kickoff inputs do not provide it"):
        crew.compile({"topic": "AI"})


def test_hierarchical_without_manager(agents: tuple[Agent, Agent]) -> None:
    r, _ = agents
    with pytest.raises(ValidationError, match="`manager_llm` or `manager_agent` is required") as info:
        Crew(agents=[r], tasks=[Task(description="d", expected_output="x", agent=r)], process=Process.hierarchical)
    assert info.value.errors()[0]["loc"] == ("manager_llm",)


def test_crew_changed_after_definition_is_checked_again_by_compile(agents: tuple[Agent, Agent]) -> None:
    r, _ = agents
    crew = Crew(agents=[r], tasks=[Task(description="d", expected_output="x", agent=r)])
    crew.tasks.append(Task(description="no agent", expected_output="x"))
    with pytest.raises(CompileError, match="Agent is missing in task #2") as info:
        crew.compile()
    assert isinstance(info.value, ValueError)


def test_all_problems_reported_together(agents: tuple[Agent, Agent]) -> None:
    r, _ = agents
    t1 = Task(description="no agent {x}", expected_output="x")
    t2 = Task(description="also none", expected_output="x")
    with pytest.raises(ValidationError) as defined:
        Crew(agents=[r], tasks=[t1, t2])
    assert [e["loc"] for e in defined.value.errors()] == [("tasks", 0, "agent"), ("tasks", 1, "agent")]
    crew = Crew(agents=[r], tasks=[Task(description="about {x} and {y}", expected_output="x", agent=r),
                                   Task(name="two", description="{z}", expected_output="x", agent=r)])
    with pytest.raises(CompileError) as info:
        crew.compile({})
    assert len(info.value.problems) == 2
    assert isinstance(info.value, CrewGraphError) and isinstance(info.value, ValueError)


def test_kickoff_validates_before_any_llm_call(agents: tuple[Agent, Agent]) -> None:
    from crewgraph.testing import FakeLLM

    llm = FakeLLM(responses=["never"])
    r = Agent(role="R", goal="g", llm=llm)
    crew = Crew(agents=[r], tasks=[Task(description="About {topic}", expected_output="x", agent=r)])
    with pytest.raises(CompileError):
        crew.kickoff()
    assert llm.calls == []


def test_node_ids_are_stable_across_compiles(agents: tuple[Agent, Agent]) -> None:
    r, w = agents
    crew = Crew(agents=[r, w], tasks=[Task(name="a", description="d", expected_output="x", agent=r)])
    assert sorted(crew.compile().graph.nodes) == sorted(crew.compile().graph.nodes)


def test_missing_placeholders_in_agent_fields_are_named() -> None:
    a = Agent(role="{field} expert", goal="g")
    crew = Crew(agents=[a], tasks=[Task(name="t", description="d", expected_output="x", agent=a)])
    with pytest.raises(CompileError, match=r"task 't' uses \{field\}"):
        crew.compile({})


def test_memory_nodes_wrap_each_task_and_chain_save_to_next_recall() -> None:
    from crewgraph import Memory
    from crewgraph.testing import FakeEmbedder

    memory = Memory(storage=":memory:", embedder=FakeEmbedder())
    a = Agent(role="R", goal="g")
    t1 = Task(name="one", description="1", expected_output="x", agent=a)
    t2 = Task(name="two", description="2", expected_output="x", agent=a)
    g = Crew(agents=[a], tasks=[t1, t2], memory=memory).compile().graph
    assert kinds(g)["t1_one.recall"] == "memory_recall" and kinds(g)["t1_one.save"] == "memory_save"
    edges = {(u, v): k for u, v, k in g.edges(data="kind")}
    assert edges[("t1_one.recall", "t1_one.agent")] == "memory"
    assert edges[("t1_one.agent", "t1_one.save")] == "memory"
    assert edges[("t1_one.save", "t2_two.recall")] == "memory"
    assert edges[("t1_one.agent", "t2_two.agent")] == "context"


def test_default_context_is_linear_in_edges_and_still_sees_every_earlier_output() -> None:
    """CrewAI's default context (every earlier output) without an edge per pair of tasks."""
    from crewgraph.testing import FakeLLM

    llm = FakeLLM(responses=[f"out{i}" for i in range(30)])
    a = Agent(role="R", goal="g", backstory="b", llm=llm)
    tasks = [Task(name=f"n{i}", description=f"task {i}", expected_output="e", agent=a) for i in range(30)]
    crew = Crew(agents=[a], tasks=tasks)
    plan = crew.compile()
    execution_edges = [k for _, _, k in plan.graph.edges(data="kind") if k != "may_call"]
    assert len(execution_edges) == 29  # one per task after the first, not 435
    crew.kickoff()
    last_prompt = llm.calls[-1].prompt
    for i in range(29):
        assert f"[n{i}]\nout{i}" in last_prompt
    assert "out29" not in last_prompt
    # The context text is built incrementally across tasks: task 3 sees exactly 0..2.
    third = llm.calls[3].prompt
    assert "out2" in third and "out3" not in third


def test_async_tasks_default_context_excludes_the_async_tasks_beside_them() -> None:
    from crewgraph.testing import FakeLLM

    def reply(request: object) -> str:
        prompt = request.prompt  # type: ignore[attr-defined]
        return "seen:" + ",".join(w for w in ("OUT-A", "OUT-B", "OUT-C") if w in prompt)

    outputs = {"a": "OUT-A", "b": "OUT-B", "c": "OUT-C"}
    llm = FakeLLM(responses=[outputs["a"], reply, reply, reply])
    agent = Agent(role="R", goal="g", backstory="b", llm=llm)
    a = Task(name="a", description="first", expected_output="e", agent=agent)
    b = Task(name="b", description="second", expected_output="e", agent=agent, async_execution=True)
    c = Task(name="c", description="third", expected_output="e", agent=agent, async_execution=True)
    d = Task(name="d", description="fourth", expected_output="e", agent=agent)
    out = Crew(agents=[agent], tasks=[a, b, c, d]).kickoff()
    by_name = {t.name: t.raw for t in out.tasks_output}
    assert by_name["b"] == "seen:OUT-A" and by_name["c"] == "seen:OUT-A"
    assert by_name["d"].startswith("seen:OUT-A")
    assert "seen:OUT-A" in llm.calls[-1].prompt  # d sees b's and c's outputs (and a's)


def test_a_misspelled_input_gets_a_did_you_mean() -> None:
    a = Agent(role="R", goal="g", backstory="b")
    crew = Crew(agents=[a], tasks=[Task(name="t", description="About {topic}", expected_output="e", agent=a)])
    with pytest.raises(CompileError, match=r"do not provide it \(did you mean 'topik' for \{topic\}\?\)"):
        crew.compile(inputs={"topik": "AI"})
    with pytest.raises(CompileError) as info:
        crew.compile(inputs={"subject": "AI"})
    assert "did you mean" not in str(info.value)  # nothing close: no guess
