"""CrewAI's import path ``crewai.events.types.mcp_events``: every event of :mod:`crewgraph.events.mcp_events`."""

from crewgraph.events.mcp_events import *  # noqa: F403  (a façade: exactly that module's names)
from crewgraph.events.mcp_events import __all__ as __all__
