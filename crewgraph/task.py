"""CrewAI's import path ``crewai.task.Task``: a thin re-export of :class:`crewgraph.spec.task.Task`."""

from crewgraph.spec.task import Task

__all__ = ["Task"]
