"""CrewAI's import path ``crewai.events.types.agent_events``: every event of :mod:`crewgraph.events.agent_events`."""

from crewgraph.events.agent_events import *  # noqa: F403  (a façade: exactly that module's names)
from crewgraph.events.agent_events import __all__ as __all__
