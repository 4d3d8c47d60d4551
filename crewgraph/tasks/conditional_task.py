"""CrewAI's import path ``crewai.tasks.conditional_task.ConditionalTask``: a thin re-export of
:class:`crewgraph.spec.conditional_task.ConditionalTask`."""

from crewgraph.spec.conditional_task import ConditionalTask

__all__ = ["ConditionalTask"]
