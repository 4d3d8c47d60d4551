"""Events of a crew kickoff and of its tasks."""

from __future__ import annotations

from typing import Any, ClassVar

from crewgraph.events.base import BaseEvent

__all__ = [
    "CrewKickoffCompletedEvent",
    "CrewKickoffFailedEvent",
    "CrewKickoffStartedEvent",
    "TaskCompletedEvent",
    "TaskFailedEvent",
    "TaskStartedEvent",
]


class CrewKickoffStartedEvent(BaseEvent):
    event_type: ClassVar[str] = "crew_kickoff_started"
    crew_name: str | None = None
    inputs: dict[str, Any] | None = None


class CrewKickoffCompletedEvent(BaseEvent):
    event_type: ClassVar[str] = "crew_kickoff_completed"
    crew_name: str | None = None
    output: Any = None
    total_tokens: int = 0
    duration_ms: float = 0.0


class CrewKickoffFailedEvent(BaseEvent):
    event_type: ClassVar[str] = "crew_kickoff_failed"
    crew_name: str | None = None
    error: str


class TaskStartedEvent(BaseEvent):
    event_type: ClassVar[str] = "task_started"
    task_name: str
    agent_role: str | None = None
    context: str | None = None


class TaskCompletedEvent(BaseEvent):
    event_type: ClassVar[str] = "task_completed"
    task_name: str
    agent_role: str | None = None
    output: Any = None
    duration_ms: float = 0.0


class TaskFailedEvent(BaseEvent):
    event_type: ClassVar[str] = "task_failed"
    task_name: str
    agent_role: str | None = None
    error: str
