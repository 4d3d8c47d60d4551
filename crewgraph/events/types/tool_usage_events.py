"""CrewAI's import path ``crewai.events.types.tool_usage_events``: every event of :mod:`crewgraph.events.tool_events`."""

from crewgraph.events.tool_events import *  # noqa: F403  (a façade: exactly that module's names)
from crewgraph.events.tool_events import __all__ as __all__
