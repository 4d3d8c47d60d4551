"""CrewAI's import path ``crewai.events.types.knowledge_events``: every event of :mod:`crewgraph.events.knowledge_events`."""

from crewgraph.events.knowledge_events import *  # noqa: F403  (a façade: exactly that module's names)
from crewgraph.events.knowledge_events import __all__ as __all__
