"""``StreamFrame``: CrewAI's channel-tagged stream record (``crewai.types.streaming``).

A frame is one item on a named channel -- ``llm`` (model text and tool-call fragments),
``tools``, ``messages``, ``flow``, ``lifecycle`` or ``custom`` -- with an id, its place in
the stream (``seq``, ``previous_id``, ``parent_id``), a ``type`` naming what happened and a
``data`` dict. ``content`` is the frame's text (``data["content"]``), ``event`` the event
payload it was made from (``data["event"]``), each ``None`` when absent.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["StreamChannel", "StreamFrame"]

StreamChannel = Literal["llm", "flow", "tools", "messages", "lifecycle", "custom"]


class StreamFrame(BaseModel):
    """One channel-tagged item of a stream (see the module docstring)."""

    model_config = ConfigDict(defer_build=True)

    id: str
    channel: StreamChannel
    type: str
    timestamp: datetime
    data: dict[str, Any] = Field(default_factory=dict)
    namespace: list[str] = Field(default_factory=list)
    seq: int | None = None
    parent_id: str | None = None
    previous_id: str | None = None

    @property
    def content(self) -> str | None:
        value = self.data.get("content")
        return None if value is None else str(value)

    @property
    def event(self) -> Any:
        return self.data.get("event")
