"""CrewAI's import path ``crewai.crews.crew_output.CrewOutput``."""

from crewgraph.outputs import CrewOutput

__all__ = ["CrewOutput"]
