"""What the executed graph says matches what happened: a step's duration includes its tool and
model calls, titles and labels carry the kickoff's inputs, and a wide run is laid out readably."""

from __future__ import annotations

import time

from crewgraph import Agent, Crew, Task
from crewgraph.export import run_to_dot
from crewgraph.export.run import format_duration, run_scene
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import tool

SLOW_S = 0.25


@tool("slow_lookup")
def slow_lookup(query: str) -> str:
    """Look something up, slowly."""
    time.sleep(SLOW_S)
    return f"found {query}"


def test_a_steps_duration_includes_its_tool_calls_and_titles_are_filled_in() -> None:
    llm = FakeLLM([FakeToolCall("slow_lookup", {"query": "cats"}), "cats purr"], model="fake")
    agent = Agent(role="{topic} researcher", goal="learn", backstory="curious", llm=llm, tools=[slow_lookup])
    crew = Crew(agents=[agent], tasks=[Task(description="research {topic}", expected_output="facts", agent=agent)])
    graph = crew.kickoff(inputs={"topic": "cats"}).graph
    step = next(r for r in graph.records() if r.kind == "agent_step")
    calls = [r for r in graph.records() if r.parent == step.node_id]
    assert {c.kind for c in calls} == {"llm", "tool"}
    assert step.duration_ms >= SLOW_S * 1000
    assert step.duration_ms >= sum(c.duration_ms for c in calls)  # the calls ran inside the step
    assert step.label == "research cats"
    drawn = run_scene(graph).nodes[step.node_id]
    assert ("small", f"{format_duration(step.duration_ms)} · {step.usage.total_tokens} tok") in drawn.rows
    dot = run_to_dot(graph)
    assert "Task: research cats" in dot and "Agent: cats researcher" in dot and "{topic}" not in dot


def test_many_parallel_tasks_are_drawn_as_a_column() -> None:
    llm = FakeLLM(default="ok", model="fake")
    agent = Agent(role="checker", goal="check", backstory="careful", llm=llm)
    checks = [Task(name=f"c{i}", description=f"check {i}", expected_output="ok", agent=agent, async_execution=True)
              for i in range(20)]
    crew = Crew(agents=[agent], tasks=[*checks, Task(description="sum up", expected_output="all", agent=agent,
                                                   context=checks)])
    graph = crew.kickoff().graph
    assert run_scene(graph).widest() == 20
    assert "rankdir=LR" in run_to_dot(graph)  # auto: a column, not a 20-task strip
    assert "rankdir=TB" in run_to_dot(graph, rankdir="TB")  # asked for explicitly, kept
    summary = Task(description="sum", expected_output="all", agent=agent, context=checks[:3])
    few = Crew(agents=[agent], tasks=[*checks[:3], summary]).kickoff().graph
    assert "rankdir=TB" in run_to_dot(few)


def test_a_guardrail_failure_names_the_task_as_the_run_filled_it_in() -> None:
    import pytest

    def too_short(output: object) -> tuple[bool, str]:
        return False, "too short"

    agent = Agent(role="writer", goal="write", backstory="terse", llm=FakeLLM(default="hi", model="fake"))
    task = Task(description="write about {topic}", expected_output="text", agent=agent, guardrail=too_short,
                guardrail_max_retries=0)
    with pytest.raises(Exception) as failed:
        Crew(agents=[agent], tasks=[task]).kickoff(inputs={"topic": "cats"})
    assert "write about cats" in str(failed.value) and "{topic}" not in str(failed.value), str(failed.value)
