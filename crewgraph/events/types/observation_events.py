"""CrewAI's import path ``crewai.events.types.observation_events`` (names: crewgraph._internal.crewai_paths)."""

from crewgraph._internal.facade import facade

__all__, __getattr__, __dir__ = facade(__name__)
