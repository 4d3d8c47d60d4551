"""CrewAI's import path ``crewai.events.types.memory_events``: every event of :mod:`crewgraph.events.memory_events`."""

from crewgraph.events.memory_events import *  # noqa: F403  (a façade: exactly that module's names)
from crewgraph.events.memory_events import __all__ as __all__
