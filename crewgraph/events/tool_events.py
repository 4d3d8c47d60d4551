"""Events of tool invocations and tool failures (CrewAI's ``tool_usage_events``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from crewgraph.events.base import BaseEvent

__all__ = [
    "ToolExecutionErrorEvent",
    "ToolFailureDetectedEvent",
    "ToolSelectionErrorEvent",
    "ToolUsageErrorEvent",
    "ToolUsageEvent",
    "ToolUsageFinishedEvent",
    "ToolUsageStartedEvent",
    "ToolValidateInputErrorEvent",
]


class ToolUsageEvent(BaseEvent):
    """The base of the tool-usage events: subscribe to it for every call's start, finish,
    error and the failed selections and validations.

    ``tool_class`` is the tool's class name; ``run_attempts`` the tries so far;
    ``agent`` the agent object when the emitter has it. ``agent_key``, ``delegations``
    and the ``plan_step_*`` fields are CrewAI's (left None where crewgraph has no such thing).
    """

    type: str = "tool_usage"
    tool_name: str = ""
    tool_args: dict[str, Any] | str = {}
    tool_class: str | None = None
    run_attempts: int = 0
    delegations: int | None = None
    agent: Any = None
    agent_key: str | None = None
    from_task: Any = None
    from_agent: Any = None
    plan_step_number: int | None = None
    plan_step_description: str | None = None


class ToolUsageStartedEvent(ToolUsageEvent):
    type: str = "tool_usage_started"


class ToolUsageFinishedEvent(ToolUsageEvent):
    """``started_at``/``finished_at``: when the call ran (``duration_ms`` the same in ms)."""

    type: str = "tool_usage_finished"
    output: Any = None
    from_cache: bool = False
    started_at: datetime | None = None
    finished_at: datetime | None = None
    duration_ms: float = 0.0
    failure: Any = None
    """The :class:`ToolFailure` when the call failed, else None."""


class ToolUsageErrorEvent(ToolUsageEvent):
    type: str = "tool_usage_error"
    error: Any


class ToolValidateInputErrorEvent(ToolUsageEvent):
    """The model called a tool with arguments its schema refuses (the agent is told, and retries)."""

    type: str = "tool_validate_input_error"
    error: Any


class ToolSelectionErrorEvent(ToolUsageEvent):
    """The model called a tool the agent does not have (the agent is told which it has)."""

    type: str = "tool_selection_error"
    error: Any


class ToolExecutionErrorEvent(BaseEvent):
    """A tool raised while it ran (CrewAI's; a ``ToolUsageErrorEvent`` is published too)."""

    type: str = "tool_execution_error"
    tool_name: str
    tool_args: dict[str, Any] = {}
    tool_class: Any = None
    error: Any
    agent: Any = None


class ToolFailureDetectedEvent(ToolUsageEvent):
    type: str = "tool_failure_detected"
    failure: Any
    """The :class:`ToolFailure`."""
    policy: Any
    """The failure policy that applies (a ``ToolFailurePolicy`` value)."""
