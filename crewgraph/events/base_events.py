"""CrewAI's import path ``crewai.events.base_events.BaseEvent``."""

from crewgraph.events.base import BaseEvent

__all__ = ["BaseEvent"]
