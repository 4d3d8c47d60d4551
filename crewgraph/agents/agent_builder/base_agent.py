"""CrewAI's import path ``crewai.agents.agent_builder.base_agent.BaseAgent``: a thin re-export of
:class:`crewgraph.spec.base_agent.BaseAgent`, the abstract base third-party agents subclass."""

from crewgraph.spec.base_agent import BaseAgent

__all__ = ["BaseAgent"]
