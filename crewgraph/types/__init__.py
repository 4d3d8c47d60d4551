"""CrewAI's ``crewai.types`` package: thin re-export modules at CrewAI's import paths."""

from crewgraph.outputs import UsageMetrics

__all__ = ["UsageMetrics"]
