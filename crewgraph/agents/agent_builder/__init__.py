"""CrewAI's ``crewai.agents.agent_builder`` package (``base_agent.BaseAgent``)."""

from crewgraph.spec.base_agent import BaseAgent

__all__ = ["BaseAgent"]
