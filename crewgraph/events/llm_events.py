"""Events of single LLM calls."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel

from crewgraph.events.base import BaseEvent

__all__ = [
    "LLMCallCompletedEvent",
    "LLMCallFailedEvent",
    "LLMCallRetryEvent",
    "LLMCallStartedEvent",
    "LLMStreamChunkEvent",
    "StreamedToolCall",
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
    finish_reason: str | None = None


class LLMCallFailedEvent(BaseEvent):
    event_type: ClassVar[str] = "llm_call_failed"
    model: str
    error: str
    status_code: int | None = None


class LLMCallRetryEvent(BaseEvent):
    """Attempt ``attempt`` of ``max_attempts`` failed (``status_code`` when the server answered);
    the next starts in ``wait_seconds``."""

    event_type: ClassVar[str] = "llm_call_retry"
    model: str
    attempt: int
    wait_seconds: float
    error: str
    max_attempts: int | None = None
    status_code: int | None = None


class StreamedToolCall(BaseModel):
    """A tool call as far as it has streamed: ``arguments`` is all the JSON text received so far."""

    id: str | None = None
    name: str = ""
    arguments: str = ""
    index: int = 0


class LLMStreamChunkEvent(BaseEvent):
    """One delta of a streamed model turn (published only by runs that stream).

    ``chunk`` is the new text, or for a ``tool_call`` chunk the new fragment of
    the call's arguments (``tool_call.arguments`` has everything so far).
    ``task_name``/``agent_role`` say whose turn it is, so a listener needs no
    lookup to label the text.
    """

    event_type: ClassVar[str] = "llm_stream_chunk"
    chunk: str
    chunk_type: Literal["text", "tool_call"] = "text"
    tool_call: StreamedToolCall | None = None
    model: str | None = None
    task_name: str | None = None
    agent_role: str | None = None
