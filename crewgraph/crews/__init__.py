"""CrewAI's ``crewai.crews`` package: thin re-export modules at CrewAI's import paths."""

from crewgraph.outputs import CrewOutput

__all__ = ["CrewOutput"]
