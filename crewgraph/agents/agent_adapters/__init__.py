"""CrewAI's import path ``crewai.agents.agent_adapters``: a thin re-export (the code is in :mod:`crewgraph.adapters`)."""

from crewgraph.adapters.base import BaseAgentAdapter, BaseConverterAdapter, BaseToolAdapter

__all__ = ["BaseAgentAdapter", "BaseConverterAdapter", "BaseToolAdapter"]
