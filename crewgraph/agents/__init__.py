"""CrewAI's ``crewai.agents`` package: thin re-export modules at CrewAI's import paths."""

from crewgraph.spec.base_agent import BaseAgent

__all__ = ["BaseAgent"]
