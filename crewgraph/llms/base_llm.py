"""CrewAI's import path ``crewai.llms.base_llm.BaseLLM``: subclass it for a custom model client."""

from crewgraph.llm.base import BaseLLM

__all__ = ["BaseLLM"]
