"""CrewAI's ``crewai.events.event_listener``: ``EventListener`` and its instance ``event_listener``.

CrewAI's default listener prints every verbose run to the console. crewgraph's console
log is per run instead (``verbose=True`` starts a ``ConsoleListener`` for that run and
stops it after), so that events of runs nobody watches are never built. This listener
therefore registers nothing of its own: it is the CrewAI-shaped handle, and a subclass's
``setup_listeners`` registers on the one bus like any ``BaseEventListener``.
"""

from __future__ import annotations

from crewgraph.events.base_event_listener import BaseEventListener
from crewgraph.events.bus import CrewGraphEventsBus

__all__ = ["EventListener", "event_listener"]


class EventListener(BaseEventListener):
    """The default listener (one per process, as CrewAI's): see the module docstring."""

    _instance: EventListener | None = None

    def __new__(cls, *args: object, **kwargs: object) -> EventListener:
        if cls is EventListener:
            if EventListener._instance is None:
                EventListener._instance = super().__new__(cls)
            return EventListener._instance
        return super().__new__(cls)

    def setup_listeners(self, crewai_event_bus: CrewGraphEventsBus) -> None:
        """Nothing to register: verbose runs print through their own ``ConsoleListener``."""


event_listener = EventListener()
