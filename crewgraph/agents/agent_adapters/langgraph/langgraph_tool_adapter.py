"""CrewAI's import path ``crewai.agents.agent_adapters.langgraph.langgraph_tool_adapter``: a thin re-export (the code is in :mod:`crewgraph.adapters`)."""

from crewgraph.adapters.langgraph_adapter import LangGraphToolAdapter

__all__ = ["LangGraphToolAdapter"]
