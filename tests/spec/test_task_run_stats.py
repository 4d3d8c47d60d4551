"""CrewAI's per-run state on a Task and its outputs, fed by a real crew run: timing
(``execution_duration``), the counters (``tools_errors``, ``delegations``,
``processed_by_agents``), ``TaskOutput.set_summary`` and ``CrewOutput.tool_failures``."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from crewgraph import Agent, Crew, Task
from crewgraph.tasks.task_output import TaskOutput
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import tool


@tool("broken_lookup")
def broken_lookup(q: str) -> str:
    """Look something up (the service is down)."""
    raise RuntimeError("service down")


def test_a_run_feeds_timing_counters_and_tool_failures() -> None:
    writer = Agent(role="Writer", goal="Write", backstory="Writes", llm=FakeLLM(["a paragraph"]))
    lead = Agent(
        role="Lead", goal="Lead", backstory="Leads", allow_delegation=True, tools=[broken_lookup],
        llm=FakeLLM([
            FakeToolCall("broken_lookup", {"q": "owls"}),
            FakeToolCall("Delegate work to coworker",
                         {"task": "write about owls", "context": "short", "coworker": "Writer"}),
            "final answer",
        ]),
    )
    task = Task(description="Write about owls", expected_output="a text", agent=lead)
    assert (task.execution_duration, task.start_time, task.end_time) == (None, None, None)
    out = Crew(agents=[lead, writer], tasks=[task]).kickoff()

    assert task.start_time is not None and task.end_time is not None
    assert task.end_time >= task.start_time
    assert task.execution_duration == (task.end_time - task.start_time).total_seconds()
    assert task.tools_errors == 1
    assert (task.delegations, task.processed_by_agents) == (1, {"Writer"})
    # CrewOutput.tool_failures is CrewAI's property: every task's failures, in task order.
    assert "tool_failures" not in type(out).model_fields
    assert [f.tool_name for f in out.tool_failures] == ["broken_lookup"]
    assert out.tool_failures == out.tasks_output[0].tool_failures and out.has_tool_failures


def test_increments_are_cumulative_and_run_state_is_refused() -> None:
    task = Task(description="d", expected_output="e")
    task.increment_tools_errors()
    task.increment_delegations(None)
    task.increment_delegations("Writer")
    assert (task.tools_errors, task.delegations, task.processed_by_agents) == (1, 2, {"Writer"})
    with pytest.raises(ValidationError, match=r"tools_errors .*records it on the task as it runs"):
        Task(description="d", expected_output="e", tools_errors=3)


def test_task_output_summary_is_crewais_validator() -> None:
    words = "one two three four five six seven eight nine ten eleven"
    assert TaskOutput(description=words, agent="a").summary == "one two three four five six seven eight nine ten..."
    assert TaskOutput(description="short one", agent="a", summary="given").summary == "short one..."
    out = TaskOutput(description="x", agent="a")
    out.description = "changed later"
    assert out.set_summary() is out and out.summary == "changed later..."
