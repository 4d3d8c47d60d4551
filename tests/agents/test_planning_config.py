"""CrewAI's ``Agent(planning=True)`` / ``planning_config=PlanningConfig(...)``: the agent plans first."""

from __future__ import annotations

import pytest

from crewgraph import Agent, Crew, PlanningConfig, Task
from crewgraph.testing import FakeLLM


def test_planning_config_plans_with_its_own_model_and_attempts() -> None:
    planner = FakeLLM(["1. look\n2. write\nNOT READY: check sources", "1. look\n2. write\nREADY: I am ready to execute the task."])
    worker = FakeLLM(["the report"])
    agent = Agent(role="Analyst", goal="report", backstory="b", llm=worker,
                  planning_config=PlanningConfig(llm=planner, max_attempts=2))
    assert agent.planning_enabled and Agent(role="r", goal="g", planning=True).planning_enabled
    out = Crew(agents=[agent], tasks=[Task(description="Report", expected_output="text", agent=agent)]).kickoff()
    assert out.raw == "the report"
    assert len(planner.calls) == 2 and "1. look" in worker.calls[0].prompt


@pytest.mark.parametrize("field", [{"reasoning_effort": "high"}, {"observe_steps": True}, {"max_replans": 1},
                                   {"plan_prompt": "Plan: {description}"}, {"step_timeout": 30}])
def test_what_the_step_executor_would_do_is_refused_by_name(field: dict[str, object]) -> None:
    with pytest.raises(ValueError, match=f"PlanningConfig.{next(iter(field))}.*not supported by crewgraph"):
        PlanningConfig(**field)
