"""CrewAI's import path ``crewai.agents.agent_adapters.base_agent_adapter``: a thin re-export (the code is in :mod:`crewgraph.adapters`)."""

from crewgraph.adapters.base import BaseAgentAdapter

__all__ = ["BaseAgentAdapter"]
