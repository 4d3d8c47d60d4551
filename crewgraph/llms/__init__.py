"""CrewAI's ``crewai.llms`` package: thin re-export modules at CrewAI's import paths."""

from crewgraph.llm.base import BaseLLM

__all__ = ["BaseLLM"]
