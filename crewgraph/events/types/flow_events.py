"""CrewAI's import path ``crewai.events.types.flow_events``: every event of :mod:`crewgraph.events.flow_events`."""

from crewgraph.events.flow_events import *  # noqa: F403  (a façade: exactly that module's names)
from crewgraph.events.flow_events import __all__ as __all__
