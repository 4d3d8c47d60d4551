"""Events of tool invocations and tool failures."""

from __future__ import annotations

from typing import Any, ClassVar

from crewgraph.events.base import BaseEvent

__all__ = [
    "ToolFailureDetectedEvent",
    "ToolUsageErrorEvent",
    "ToolUsageEvent",
    "ToolUsageFinishedEvent",
    "ToolUsageStartedEvent",
]


class ToolUsageEvent(BaseEvent):
    """The base of the tool-usage events: subscribe to it for every call's start, finish and error."""

    event_type: ClassVar[str] = "tool_usage"


class ToolUsageStartedEvent(ToolUsageEvent):
    event_type: ClassVar[str] = "tool_usage_started"
    tool_name: str
    tool_args: dict[str, Any] | str = {}
    agent_role: str | None = None
    task_name: str | None = None


class ToolUsageFinishedEvent(ToolUsageEvent):
    event_type: ClassVar[str] = "tool_usage_finished"
    tool_name: str
    tool_args: dict[str, Any] | str = {}
    agent_role: str | None = None
    task_name: str | None = None
    output: Any = None
    from_cache: bool = False
    duration_ms: float = 0.0
    failure: Any = None
    """The :class:`ToolFailure` when the call failed, else None."""


class ToolUsageErrorEvent(ToolUsageEvent):
    event_type: ClassVar[str] = "tool_usage_error"
    tool_name: str
    tool_args: dict[str, Any] | str = {}
    agent_role: str | None = None
    task_name: str | None = None
    error: str


class ToolFailureDetectedEvent(BaseEvent):
    event_type: ClassVar[str] = "tool_failure_detected"
    tool_name: str
    failure: Any
    """The :class:`ToolFailure`."""
    policy: str
    agent_role: str | None = None
    task_name: str | None = None
