"""Events of ``Crew.train`` and ``Crew.test`` (CrewAI's names and fields)."""

from __future__ import annotations

from typing import Any

from crewgraph.events.base import BaseEvent
from crewgraph.events.crew_events import CrewBaseEvent

__all__ = [
    "CrewTestCompletedEvent",
    "CrewTestFailedEvent",
    "CrewTestResultEvent",
    "CrewTestStartedEvent",
    "CrewTrainCompletedEvent",
    "CrewTrainFailedEvent",
    "CrewTrainStartedEvent",
    "TaskEvaluationEvent",
]


class CrewTrainStartedEvent(CrewBaseEvent):
    type: str = "crew_train_started"
    n_iterations: int
    filename: str
    inputs: dict[str, Any] | None = None


class CrewTrainCompletedEvent(CrewBaseEvent):
    type: str = "crew_train_completed"
    n_iterations: int
    filename: str


class CrewTrainFailedEvent(CrewBaseEvent):
    type: str = "crew_train_failed"
    error: str


class CrewTestStartedEvent(CrewBaseEvent):
    type: str = "crew_test_started"
    n_iterations: int
    eval_llm: Any = None
    inputs: dict[str, Any] | None = None


class CrewTestCompletedEvent(CrewBaseEvent):
    type: str = "crew_test_completed"


class CrewTestFailedEvent(CrewBaseEvent):
    type: str = "crew_test_failed"
    error: str


class CrewTestResultEvent(CrewBaseEvent):
    """One task's score in one ``Crew.test`` iteration."""

    type: str = "crew_test_result"
    quality: float
    execution_duration: float
    model: str
    task_name: str | None = None
    iteration: int | None = None


class TaskEvaluationEvent(BaseEvent):
    """A model is asked to evaluate work (``evaluation_type``: ``task_evaluation`` or
    ``training_data_evaluation``)."""

    type: str = "task_evaluation"
    evaluation_type: str
    task: Any = None
