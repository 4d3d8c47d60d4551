"""CrewAI's import path ``crewai.tasks.task_output.TaskOutput``."""

from crewgraph.outputs import TaskOutput

__all__ = ["TaskOutput"]
