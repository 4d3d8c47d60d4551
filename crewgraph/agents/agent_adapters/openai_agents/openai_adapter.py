"""CrewAI's import path ``crewai.agents.agent_adapters.openai_agents.openai_adapter``: a thin re-export (the code is in :mod:`crewgraph.adapters`)."""

from crewgraph.adapters.openai_adapter import OpenAIAgentAdapter

__all__ = ["OpenAIAgentAdapter"]
