"""``Agent(guardrail=...)`` applies to every task that agent does (and to its kickoff)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from crewgraph import Agent, Crew, Task
from crewgraph.testing import FakeLLM


def polite(output: Any) -> tuple[bool, Any]:
    ok = "please" in output.raw
    return (ok, output.raw if ok else "say please")


def test_agent_guardrail_checks_each_of_its_tasks() -> None:
    llm = FakeLLM(["give it", "please give it", "please done"])
    a = Agent(role="R", goal="g", llm=llm, guardrail=polite, guardrail_max_retries=1)
    t1 = Task(name="one", description="First", expected_output="x", agent=a)
    t2 = Task(name="two", description="Second", expected_output="x", agent=a)
    out = Crew(agents=[a], tasks=[t1, t2]).kickoff()
    assert [t.raw for t in out.tasks_output] == ["please give it", "please done"]
    assert "say please" in llm.calls[1].messages[-1]["content"]
    assert out.graph.record("t1_one.guardrail1").kind == "guardrail"


def test_task_guardrails_come_first_and_the_agent_guardrail_applies_to_kickoff() -> None:
    def short(output: Any) -> tuple[bool, Any]:
        ok = len(output.raw) < 30
        return (ok, output.raw if ok else "shorter")

    llm = FakeLLM(["no magic word here", "please ok"])
    a = Agent(role="R", goal="g", llm=llm, guardrail=polite)
    plan = Crew(agents=[a], tasks=[Task(name="t", description="d", expected_output="x", agent=a, guardrail=short)]).compile()
    assert [plan.node(n).label for n in ("t1_t.guardrail1", "t1_t.guardrail2")] == ["short", "polite"]
    assert a.kickoff("hi").raw == "please ok"  # the agent's guardrail held its kickoff too
    with pytest.raises(ValidationError, match="exactly one parameter"):
        Agent(role="R", goal="g", guardrail=lambda a, b: (True, a))
