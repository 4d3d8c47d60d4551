"""Base class for listeners that register a group of handlers at once."""

from __future__ import annotations

from abc import ABC, abstractmethod

from crewgraph.events.bus import CrewGraphEventsBus, crewgraph_event_bus

__all__ = ["BaseEventListener"]


class BaseEventListener(ABC):
    """Subclass and implement :meth:`setup_listeners`; instantiating registers them."""

    verbose: bool = False

    def __init__(self, bus: CrewGraphEventsBus | None = None) -> None:
        self.setup_listeners(bus or crewgraph_event_bus)

    @abstractmethod
    def setup_listeners(self, crewai_event_bus: CrewGraphEventsBus) -> None:
        """Register handlers with ``@crewai_event_bus.on(EventType)`` (CrewAI's parameter name;
        it is crewgraph's one bus, ``crewgraph_event_bus``)."""
