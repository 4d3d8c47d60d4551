"""CrewAI's import path ``crewai.events.event_bus``: ``crewai_event_bus`` is crewgraph's one bus (names: crewgraph._internal.crewai_paths)."""

from crewgraph._internal.facade import facade

__all__, __getattr__, __dir__ = facade(__name__)
