"""Events of an agent's reasoning step (``Agent(reasoning=True)``: a plan before the task)."""

from __future__ import annotations

from typing import Any

from crewgraph.events.base import BaseEvent

__all__ = ["AgentReasoningCompletedEvent", "AgentReasoningFailedEvent", "AgentReasoningStartedEvent", "ReasoningEvent"]


class ReasoningEvent(BaseEvent):
    """The base of the agent-reasoning events: subscribe to it for all three."""

    type: str = "reasoning"
    attempt: int = 1
    from_task: Any = None
    from_agent: Any = None


class AgentReasoningStartedEvent(ReasoningEvent):
    type: str = "agent_reasoning_started"
    attempt: int = 1


class AgentReasoningCompletedEvent(ReasoningEvent):
    type: str = "agent_reasoning_completed"
    plan: str
    ready: bool
    attempt: int = 1


class AgentReasoningFailedEvent(ReasoningEvent):
    type: str = "agent_reasoning_failed"
    error: str
    attempt: int = 1
