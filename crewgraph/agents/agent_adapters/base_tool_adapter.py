"""CrewAI's import path ``crewai.agents.agent_adapters.base_tool_adapter``: a thin re-export (the code is in :mod:`crewgraph.adapters`)."""

from crewgraph.adapters.base import BaseToolAdapter

__all__ = ["BaseToolAdapter"]
