"""Events of single LLM calls."""

from __future__ import annotations

from typing import Any, ClassVar

from crewgraph.events.base import BaseEvent

__all__ = [
    "LLMCallCompletedEvent",
    "LLMCallFailedEvent",
    "LLMCallRetryEvent",
    "LLMCallStartedEvent",
    "LLMStreamChunkEvent",
]


class LLMCallStartedEvent(BaseEvent):
    event_type: ClassVar[str] = "llm_call_started"
    model: str
    messages: list[dict[str, Any]] = []
    tools: list[str] = []
    response_model: str | None = None


class LLMCallCompletedEvent(BaseEvent):
    event_type: ClassVar[str] = "llm_call_completed"
    model: str
    response: str | None = None
    tool_calls: list[str] = []
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    duration_ms: float = 0.0


class LLMCallFailedEvent(BaseEvent):
    event_type: ClassVar[str] = "llm_call_failed"
    model: str
    error: str
    status_code: int | None = None


class LLMCallRetryEvent(BaseEvent):
    event_type: ClassVar[str] = "llm_call_retry"
    model: str
    attempt: int
    wait_seconds: float
    error: str


class LLMStreamChunkEvent(BaseEvent):
    event_type: ClassVar[str] = "llm_stream_chunk"
    chunk: str
