"""CrewAI's import path ``crewai.events.types.llm_events``: every event of :mod:`crewgraph.events.llm_events`."""

from crewgraph.events.llm_events import *  # noqa: F403  (a façade: exactly that module's names)
from crewgraph.events.llm_events import __all__ as __all__
