"""``Node.reads()``: what each node kind reads beyond its upstream (the contract executors ship by)."""

from __future__ import annotations

from typing import Any

from crewgraph import Agent, Crew, Task
from crewgraph.graph.node_prefix import NodePrefix
from crewgraph.graph.reads import NO_READS, OutputText, Reads
from crewgraph.nodes._context import context_entry
from crewgraph.nodes.agent_step import AgentStepNode
from crewgraph.nodes.condition import ConditionNode
from crewgraph.outputs import TaskOutput
from crewgraph.tasks.conditional_task import ConditionalTask
from crewgraph.testing import FakeLLM


def _nodes(crew: Crew) -> dict[str, Any]:
    graph = crew.compile()
    return {nid: data["node"] for nid, data in graph.digraph.nodes(data=True)}


def test_agent_steps_read_their_context_as_text_and_their_helpers_whole() -> None:
    agent = Agent(role="W", goal="g", backstory="b", llm=FakeLLM(default="ok"), memory=False)
    t0 = Task(name="a", description="one", expected_output="x", agent=agent)
    t1 = Task(name="b", description="two", expected_output="x", agent=agent)
    t2 = Task(name="c", description="three", expected_output="x", agent=agent, context=[t0])
    t3 = Task(name="d", description="four", expected_output="x", agent=agent, context=[])
    steps = [n for n in _nodes(Crew(agents=[agent], tasks=[t0, t1, t2, t3])).values()
             if isinstance(n, AgentStepNode)]
    steps.sort(key=lambda n: n.id)
    first, default, explicit, empty = (step.reads() for step in steps)
    assert isinstance(default.texts, NodePrefix) and len(default.texts) == 1
    assert first.texts == () and first.upstream == ()  # nothing before it
    assert len(explicit.texts) == 1 and explicit.upstream == () and explicit.outputs == ()
    assert empty == Reads(upstream=())  # the previous task is upstream only to order the tasks
    redo = AgentStepNode(id="r", task_name="a", description="d", expected_output="x", agent_role="W",
                         context_nodes=("t0",), base_messages=({"role": "system", "content": "s"},),
                         memory_node="m")
    assert redo.reads() == Reads(upstream=("m",))  # a redo reuses its prompt: no context read


def test_a_condition_reads_the_previous_output_whole() -> None:
    agent = Agent(role="W", goal="g", backstory="b", llm=FakeLLM(default="ok"))
    t0 = Task(name="a", description="one", expected_output="x", agent=agent)
    gated = ConditionalTask(name="b", description="two", expected_output="x", agent=agent, condition=lambda o: True)
    conditions = [n for n in _nodes(Crew(agents=[agent], tasks=[t0, gated])).values() if isinstance(n, ConditionNode)]
    assert [c.reads() for c in conditions] == [Reads(outputs=(conditions[0].previous,))]


def test_other_nodes_read_their_upstream_only() -> None:
    from crewgraph.graph.node import Node

    agent = Agent(role="W", goal="g", backstory="b", llm=FakeLLM(default="ok"))
    task = Task(name="a", description="one", expected_output="x", agent=agent, guardrail=lambda o: (True, o))
    others = [n for n in _nodes(Crew(agents=[agent], tasks=[task])).values()
              if not isinstance(n, AgentStepNode | ConditionNode)]
    assert {n.kind for n in others} >= {"guardrail"}
    assert all(type(n).reads is Node.reads and n.reads() == NO_READS for n in others)


def test_an_output_text_gives_the_context_entry_its_output_gives() -> None:
    from crewgraph.graph.context import NodeContext

    outputs: dict[str, Any] = {
        "named": TaskOutput(description="d", name="Named", raw="the text", agent="W"),
        "unnamed": TaskOutput(description="write a long thing about many topics", raw="r", agent="W"),
        "plain": "a string output",
    }
    for nid, output in outputs.items():
        whole = context_entry(NodeContext(upstream={nid: output}), nid)
        text = context_entry(NodeContext(results={nid: OutputText.of(output, nid)}), nid)
        assert whole == text and whole is not None
