"""CrewAI's import path ``crewai.events.types.crew_events``: the crew kickoff events."""

from crewgraph.events.crew_events import (
    CrewKickoffCompletedEvent,
    CrewKickoffFailedEvent,
    CrewKickoffStartedEvent,
)

__all__ = ["CrewKickoffCompletedEvent", "CrewKickoffFailedEvent", "CrewKickoffStartedEvent"]
