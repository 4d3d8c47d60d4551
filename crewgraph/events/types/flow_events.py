"""CrewAI's import path ``crewai.events.types.flow_events``: every event of
:mod:`crewgraph.events.flow_events` and :mod:`crewgraph.events.conversation_events`."""

from crewgraph.events.conversation_events import *  # noqa: F403  (a façade: exactly those modules' names)
from crewgraph.events.conversation_events import __all__ as _conversation
from crewgraph.events.flow_events import *  # noqa: F403
from crewgraph.events.flow_events import __all__ as _flow

__all__ = [*_flow, *_conversation]
