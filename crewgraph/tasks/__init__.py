"""CrewAI's ``crewai.tasks`` package: thin re-export modules at CrewAI's import paths."""

from crewgraph.outputs import OutputFormat, TaskOutput

__all__ = ["OutputFormat", "TaskOutput"]
