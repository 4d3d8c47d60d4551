"""Events of ``Crew.train`` and ``Crew.test`` (CrewAI's names and fields)."""

from __future__ import annotations

from typing import Any, ClassVar

from crewgraph.events.base import BaseEvent

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


class CrewTrainStartedEvent(BaseEvent):
    event_type: ClassVar[str] = "crew_train_started"
    crew_name: str | None = None
    n_iterations: int
    filename: str
    inputs: dict[str, Any] | None = None


class CrewTrainCompletedEvent(BaseEvent):
    event_type: ClassVar[str] = "crew_train_completed"
    crew_name: str | None = None
    n_iterations: int
    filename: str


class CrewTrainFailedEvent(BaseEvent):
    event_type: ClassVar[str] = "crew_train_failed"
    crew_name: str | None = None
    error: str


class CrewTestStartedEvent(BaseEvent):
    event_type: ClassVar[str] = "crew_test_started"
    crew_name: str | None = None
    n_iterations: int
    eval_llm: Any = None
    inputs: dict[str, Any] | None = None


class CrewTestCompletedEvent(BaseEvent):
    event_type: ClassVar[str] = "crew_test_completed"
    crew_name: str | None = None


class CrewTestFailedEvent(BaseEvent):
    event_type: ClassVar[str] = "crew_test_failed"
    crew_name: str | None = None
    error: str


class CrewTestResultEvent(BaseEvent):
    """One task's score in one ``Crew.test`` iteration."""

    event_type: ClassVar[str] = "crew_test_result"
    crew_name: str | None = None
    quality: float
    execution_duration: float
    model: str
    task_name: str | None = None
    iteration: int | None = None


class TaskEvaluationEvent(BaseEvent):
    """A model is asked to evaluate work (``evaluation_type``: ``task_evaluation`` or
    ``training_data_evaluation``)."""

    event_type: ClassVar[str] = "task_evaluation"
    evaluation_type: str
    task: Any = None
