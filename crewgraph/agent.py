"""CrewAI's import path ``crewai.agent.Agent``: a thin re-export of :class:`crewgraph.spec.agent.Agent`."""

from crewgraph.spec.agent import Agent

__all__ = ["Agent"]
