"""Events of the steps of a plan (CrewAI's ``observation_events``).

When an agent plans (``Agent(reasoning=True)``) or a crew plans (``Crew(planning=True)``),
each step of the plan that its task then carries out is announced: ``PlanStepStartedEvent``
as the plan reaches the agent, ``PlanStepCompletedEvent`` when the task that follows it is done.
"""

from __future__ import annotations

from typing import Any

from crewgraph.events.base import BaseEvent

__all__ = ["PlanStepCompletedEvent", "PlanStepEvent", "PlanStepStartedEvent"]


class PlanStepEvent(BaseEvent):
    """The base of the plan-step events: ``step_number`` counts from 1."""

    type: str = "plan_step"
    step_number: int
    step_description: str = ""
    tool_to_use: str | None = None
    from_task: Any = None
    from_agent: Any = None


class PlanStepStartedEvent(PlanStepEvent):
    type: str = "plan_step_started"


class PlanStepCompletedEvent(PlanStepEvent):
    type: str = "plan_step_completed"
    success: bool = True
    result: str | None = None
    error: str | None = None
