"""CrewAI's import path ``crewai.utilities.prompts`` (names: crewgraph._internal.crewai_paths)."""

from crewgraph._internal.facade import facade

__all__, __getattr__, __dir__ = facade(__name__)
