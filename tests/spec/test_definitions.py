"""Agent, Task and Crew definitions: defaults, and pydantic errors that name the field."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from crewgraph import Agent, Crew, Process, Task


def test_agent_defaults_follow_crewai() -> None:
    a = Agent(role="R", goal="G", backstory="B")
    assert (a.max_iter, a.max_rpm, a.allow_delegation, a.verbose, a.cache, a.tools) == (25, None, False, False, True, [])
    with pytest.raises(ValidationError):
        a.id = a.id  # frozen


def test_task_defaults_follow_crewai() -> None:
    t = Task(description="d", expected_output="e")
    assert (t.async_execution, t.guardrail_max_retries, t.context, t.human_input) == (False, 3, None, False)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"role": "", "goal": "g"}, "role"),
        ({"role": "r", "goal": "g", "max_iter": 0}, "max_iter"),
        ({"role": "r", "goal": "g", "tools": ["not a tool"]}, "tools"),
        ({"role": "r", "goal": "g", "llm": 42}, "llm"),
        ({"role": "r", "goal": "g", "unknown_field": 1}, "unknown_field"),
    ],
)
def test_bad_agent_fields_are_named(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError) as info:
        Agent(**kwargs)
    assert field in str(info.value)


def test_guardrail_signature_checked_at_definition() -> None:
    def two(a: object, b: object) -> tuple[bool, object]:
        return True, a

    def wrong_return(a: object) -> str:
        return "x"

    with pytest.raises(ValidationError, match="exactly one parameter"):
        Task(description="d", expected_output="e", guardrail=two)
    with pytest.raises(ValidationError, match=r"tuple\[bool, Any\]"):
        Task(description="d", expected_output="e", guardrail=wrong_return)
    Task(description="d", expected_output="e", guardrail="must be polite")


def test_only_one_output_format() -> None:
    class M(BaseModel):
        x: int

    with pytest.raises(ValidationError, match="only one of output_json and output_pydantic"):
        Task(description="d", expected_output="e", output_json=M, output_pydantic=M)


def test_crew_collects_task_agents_and_rejects_bad_process() -> None:
    a = Agent(role="R", goal="G")
    crew = Crew(tasks=[Task(description="d", expected_output="e", agent=a)])
    assert crew.agents == [a]
    with pytest.raises(ValidationError, match="process"):
        Crew(process="consensual")
    t = Task(description="d", expected_output="e", agent=a)
    assert Crew(tasks=[t], process="parallel").process is Process.parallel
