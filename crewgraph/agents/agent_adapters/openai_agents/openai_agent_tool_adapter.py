"""CrewAI's import path ``crewai.agents.agent_adapters.openai_agents.openai_agent_tool_adapter``: a thin re-export (the code is in :mod:`crewgraph.adapters`)."""

from crewgraph.adapters.openai_adapter import OpenAIAgentToolAdapter

__all__ = ["OpenAIAgentToolAdapter"]
