"""CrewAI's import path ``crewai.events.types.task_events``: the task events."""

from crewgraph.events.crew_events import TaskCompletedEvent, TaskFailedEvent, TaskStartedEvent

__all__ = ["TaskCompletedEvent", "TaskFailedEvent", "TaskStartedEvent"]
