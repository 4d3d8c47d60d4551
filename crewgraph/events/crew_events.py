"""Events of a crew kickoff and of its tasks."""

from __future__ import annotations

import builtins
from typing import Any

from crewgraph.events.base import BaseEvent

__all__ = [
    "CrewBaseEvent",
    "CrewKickoffCompletedEvent",
    "CrewKickoffFailedEvent",
    "CrewKickoffStartedEvent",
    "TaskCompletedEvent",
    "TaskFailedEvent",
    "TaskStartedEvent",
]


class CrewBaseEvent(BaseEvent):
    """The base of the crew events (kickoff, train, test): ``crew`` is the Crew when the
    emitter has it."""

    type: str = "crew"
    crew_name: str | None = None
    crew: Any = None


class CrewKickoffStartedEvent(CrewBaseEvent):
    type: str = "crew_kickoff_started"
    inputs: dict[str, Any] | None = None


class CrewKickoffCompletedEvent(CrewBaseEvent):
    type: str = "crew_kickoff_completed"
    output: Any = None
    total_tokens: int = 0
    duration_ms: float = 0.0


class CrewKickoffFailedEvent(CrewBaseEvent):
    type: str = "crew_kickoff_failed"
    error: str


class TaskStartedEvent(BaseEvent):
    type: str = "task_started"
    task: Any = None
    context: str | None = None


class TaskCompletedEvent(BaseEvent):
    type: str = "task_completed"
    task: Any = None
    output: Any = None
    duration_ms: float = 0.0


class TaskFailedEvent(BaseEvent):
    """``error_type``: the exception's class, when the failure was an exception."""

    type: str = "task_failed"
    task: Any = None
    error: str
    error_type: builtins.type[BaseException] | None = None
