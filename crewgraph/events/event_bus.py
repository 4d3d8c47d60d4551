"""Seed import path: ``from crewgraph.events.event_bus import crewgraph_event_bus``."""

from crewgraph.events.bus import CrewGraphEventsBus, crewgraph_event_bus

__all__ = ["CrewGraphEventsBus", "crewgraph_event_bus"]
