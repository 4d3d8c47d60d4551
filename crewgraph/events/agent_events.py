"""Events of an agent working on a task (one agent_step node)."""

from __future__ import annotations

from typing import ClassVar

from crewgraph.events.base import BaseEvent

__all__ = [
    "AgentExecutionCompletedEvent",
    "AgentExecutionErrorEvent",
    "AgentExecutionStartedEvent",
]


class AgentExecutionStartedEvent(BaseEvent):
    event_type: ClassVar[str] = "agent_execution_started"
    agent_role: str
    task_name: str | None = None
    task_prompt: str | None = None
    tools: list[str] = []


class AgentExecutionCompletedEvent(BaseEvent):
    event_type: ClassVar[str] = "agent_execution_completed"
    agent_role: str
    task_name: str | None = None
    output: str = ""
    iterations: int = 0


class AgentExecutionErrorEvent(BaseEvent):
    event_type: ClassVar[str] = "agent_execution_error"
    agent_role: str
    task_name: str | None = None
    error: str
