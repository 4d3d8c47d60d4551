"""The root of every typed event published on the event bus."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BaseEvent"]


def _now() -> datetime:
    return datetime.now(UTC)


class BaseEvent(BaseModel):
    """A typed event. ``type`` is a stable string name for logs and JSON export.

    ``run_id`` ties the event to one kickoff (a flow's run id is shared by the
    crews it kicks off); ``node_id``/``node_kind`` are set when a graph node
    emitted it.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, defer_build=True)

    event_type: ClassVar[str] = "event"
    timestamp: datetime = Field(default_factory=_now)
    run_id: str | None = None
    node_id: str | None = None
    node_kind: str | None = None
    source_type: str | None = None

    @property
    def type(self) -> str:
        return self.event_type

    def to_json_dict(self) -> dict[str, Any]:
        """A JSON-safe dict of the event, with its ``type``."""
        data = self.model_dump(mode="json", exclude_none=True, fallback=str)
        data["type"] = self.event_type
        return data
