"""CrewAI's import path ``crewai.agents.agent_adapters.base_converter_adapter``: a thin re-export (the code is in :mod:`crewgraph.adapters`)."""

from crewgraph.adapters.base import BaseConverterAdapter

__all__ = ["BaseConverterAdapter"]
