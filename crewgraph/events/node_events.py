"""Events of the scheduler: every graph node's start, finish, failure and retry."""

from __future__ import annotations

from typing import Any

from crewgraph.events.base import BaseEvent

__all__ = [
    "NodeFailedEvent",
    "NodeFinishedEvent",
    "NodeRetriedEvent",
    "NodeSkippedEvent",
    "NodeStartedEvent",
]


class NodeStartedEvent(BaseEvent):
    type: str = "node_started"
    label: str | None = None
    attempt: int = 1


class NodeFinishedEvent(BaseEvent):
    type: str = "node_finished"
    label: str | None = None
    duration_ms: float = 0.0
    total_tokens: int = 0
    output_preview: str | None = None
    from_checkpoint: bool = False
    warning: str | None = None
    """The node finished but something it needed was missing (``info["warning"]``: a retrieval
    that found nothing, a tool that failed on every call, a recall over an empty memory)."""
    handled_error: str | None = None
    """A tool call that failed under its ``warn``/``ignore`` policy: the node completed (the model
    was given the failure as the tool's result), and this is the failure."""


class NodeFailedEvent(BaseEvent):
    type: str = "node_failed"
    label: str | None = None
    error: str
    attempts: int = 1
    duration_ms: float = 0.0


class NodeRetriedEvent(BaseEvent):
    type: str = "node_retried"
    label: str | None = None
    attempt: int
    wait_seconds: float
    error: str


class NodeSkippedEvent(BaseEvent):
    type: str = "node_skipped"
    label: str | None = None
    reason: str
    extra: dict[str, Any] = {}
