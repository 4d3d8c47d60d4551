"""Events of an agent's reasoning step (``Agent(reasoning=True)``: a plan before the task)."""

from __future__ import annotations

from typing import ClassVar

from crewgraph.events.base import BaseEvent

__all__ = ["AgentReasoningCompletedEvent", "AgentReasoningFailedEvent", "AgentReasoningStartedEvent", "ReasoningEvent"]


class ReasoningEvent(BaseEvent):
    """The base of the agent-reasoning events: subscribe to it for all three."""

    event_type: ClassVar[str] = "reasoning"


class AgentReasoningStartedEvent(ReasoningEvent):
    event_type: ClassVar[str] = "agent_reasoning_started"
    agent_role: str
    task_name: str | None = None
    attempt: int = 1


class AgentReasoningCompletedEvent(ReasoningEvent):
    event_type: ClassVar[str] = "agent_reasoning_completed"
    agent_role: str
    task_name: str | None = None
    plan: str
    ready: bool
    attempt: int = 1


class AgentReasoningFailedEvent(ReasoningEvent):
    event_type: ClassVar[str] = "agent_reasoning_failed"
    agent_role: str
    task_name: str | None = None
    error: str
    attempt: int = 1
