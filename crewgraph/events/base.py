"""The root of every typed event published on the event bus."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BaseEvent"]


def _now() -> datetime:
    return datetime.now(UTC)


def _new_id() -> str:
    return str(uuid.uuid4())


class BaseEvent(BaseModel):
    """A typed event. ``type`` is a stable string name for logs and JSON export.

    ``run_id`` ties the event to one kickoff (a flow's run id is shared by the
    crews it kicks off); ``node_id``/``node_kind`` are set when a graph node
    emitted it.

    CrewAI's event fields: ``event_id`` (unique); ``emission_sequence`` and
    ``previous_event_id`` (the bus stamps them: the order events were emitted in, across
    the process); ``source_fingerprint``/``fingerprint_metadata`` (the bus copies them from a
    source that has a ``fingerprint``, an agent, task or crew); ``task_id``/``task_name``/
    ``agent_id``/``agent_role`` where an event belongs to one. ``parent_event_id``,
    ``started_event_id`` and ``triggered_by_event_id`` are not tracked by crewgraph (the run
    graph and ``node_id`` relate events instead) and stay None.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, defer_build=True)

    event_type: ClassVar[str] = "event"
    timestamp: datetime = Field(default_factory=_now)
    run_id: str | None = None
    node_id: str | None = None
    node_kind: str | None = None
    source_type: str | None = None
    event_id: str = Field(default_factory=_new_id)
    emission_sequence: int | None = None
    previous_event_id: str | None = None
    source_fingerprint: str | None = None
    fingerprint_metadata: dict[str, Any] | None = None
    task_id: str | None = None
    task_name: str | None = None
    agent_id: str | None = None
    agent_role: str | None = None
    parent_event_id: str | None = None
    started_event_id: str | None = None
    triggered_by_event_id: str | None = None

    @property
    def type(self) -> str:
        return self.event_type

    def to_json_dict(self) -> dict[str, Any]:
        """A JSON-safe dict of the event, with its ``type``."""
        data = self.model_dump(mode="json", exclude_none=True, fallback=str)
        data["type"] = self.event_type
        return data
