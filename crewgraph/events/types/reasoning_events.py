"""CrewAI's import path ``crewai.events.types.reasoning_events``: every event of :mod:`crewgraph.events.reasoning_events`."""

from crewgraph.events.reasoning_events import *  # noqa: F403  (a façade: exactly that module's names)
from crewgraph.events.reasoning_events import __all__ as __all__
