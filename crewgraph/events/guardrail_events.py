"""Events of task guardrails (CrewAI's ``LLMGuardrail*Event``; crewgraph's older names
``Guardrail*Event`` are the same classes)."""

from __future__ import annotations

from typing import Any

from crewgraph.events.base import BaseEvent

__all__ = [
    "GuardrailCompletedEvent",
    "GuardrailStartedEvent",
    "LLMGuardrailBaseEvent",
    "LLMGuardrailCompletedEvent",
    "LLMGuardrailStartedEvent",
]


class LLMGuardrailBaseEvent(BaseEvent):
    """The base of the guardrail events. ``guardrail``: the guardrail's description (a
    callable's name, or an LLM guardrail's text); ``guardrail_type``: ``"function"`` or ``"llm"``."""

    type: str = "llm_guardrail"
    guardrail_name: str | None = None
    guardrail_type: str | None = None
    from_task: Any = None
    from_agent: Any = None


class LLMGuardrailStartedEvent(LLMGuardrailBaseEvent):
    type: str = "llm_guardrail_started"
    guardrail: str
    retry_count: int = 0


class LLMGuardrailCompletedEvent(LLMGuardrailBaseEvent):
    type: str = "llm_guardrail_completed"
    guardrail: str
    success: bool
    result: Any = None
    error: str | None = None
    retry_count: int = 0


GuardrailStartedEvent = LLMGuardrailStartedEvent
GuardrailCompletedEvent = LLMGuardrailCompletedEvent
