"""Events of task guardrails."""

from __future__ import annotations

from typing import Any, ClassVar

from crewgraph.events.base import BaseEvent

__all__ = ["GuardrailCompletedEvent", "GuardrailStartedEvent"]


class GuardrailStartedEvent(BaseEvent):
    event_type: ClassVar[str] = "guardrail_started"
    task_name: str | None = None
    guardrail: str
    retry_count: int = 0


class GuardrailCompletedEvent(BaseEvent):
    event_type: ClassVar[str] = "guardrail_completed"
    task_name: str | None = None
    guardrail: str
    success: bool
    result: Any = None
    error: str | None = None
    retry_count: int = 0
