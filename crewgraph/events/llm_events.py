"""Events of single LLM calls and of context-window summarization."""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel

from crewgraph.events.base import BaseEvent

__all__ = [
    "ContextWindowSummarizationCompletedEvent",
    "ContextWindowSummarizationEvent",
    "ContextWindowSummarizationFailedEvent",
    "ContextWindowSummarizationStartedEvent",
    "LLMCallCompletedEvent",
    "LLMCallFailedEvent",
    "LLMCallRetryEvent",
    "LLMCallStartedEvent",
    "LLMCallType",
    "LLMEventBase",
    "LLMStreamChunkEvent",
    "StreamedToolCall",
]


class LLMCallType(Enum):
    """What a model call answered with (CrewAI's): text, or tool calls."""

    TOOL_CALL = "tool_call"
    LLM_CALL = "llm_call"


class LLMEventBase(BaseEvent):
    """The base of the LLM call events. ``call_id`` is the same on a call's started,
    completed/failed and stream-chunk events."""

    type: str = "llm"
    model: str | None = None
    call_id: str | None = None
    from_task: Any = None
    from_agent: Any = None


class LLMCallStartedEvent(LLMEventBase):
    """``tools``: the tool names offered; the sampling fields are the call's own settings."""

    type: str = "llm_call_started"
    messages: str | list[dict[str, Any]] | None = None
    tools: list[Any] | None = None
    response_model: str | None = None
    callbacks: list[Any] | None = None
    available_functions: dict[str, Any] | None = None
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | float | None = None
    stream: bool | None = None
    seed: int | None = None
    stop_sequences: list[str] | None = None
    frequency_penalty: float | None = None
    presence_penalty: float | None = None
    n: int | None = None


class LLMCallCompletedEvent(LLMEventBase):
    """``usage`` is CrewAI's token dict; ``prompt_tokens``... are the same numbers as fields."""

    type: str = "llm_call_completed"
    messages: str | list[dict[str, Any]] | None = None
    response: Any = None
    call_type: LLMCallType = LLMCallType.LLM_CALL
    usage: dict[str, Any] | None = None
    response_id: str | None = None
    tool_calls: list[str] = []
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    duration_ms: float = 0.0
    finish_reason: str | None = None


class LLMCallFailedEvent(LLMEventBase):
    type: str = "llm_call_failed"
    error: str
    status_code: int | None = None


class LLMCallRetryEvent(LLMEventBase):
    """Attempt ``attempt`` of ``max_attempts`` failed (``status_code`` when the server answered);
    the next starts in ``wait_seconds``."""

    type: str = "llm_call_retry"
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


class LLMStreamChunkEvent(LLMEventBase):
    """One delta of a streamed model turn (published only by runs that stream).

    ``chunk`` is the new text, or for a ``tool_call`` chunk the new fragment of
    the call's arguments (``tool_call.arguments`` has everything so far).
    ``task_name``/``agent_role`` say whose turn it is, so a listener needs no
    lookup to label the text.
    """

    type: str = "llm_stream_chunk"
    chunk: str
    chunk_type: Literal["text", "tool_call"] = "text"
    tool_call: StreamedToolCall | None = None
    call_type: LLMCallType | None = None
    response_id: str | None = None


class ContextWindowSummarizationEvent(BaseEvent):
    """The base of the summarization events: ``respect_context_window`` found the messages
    too long for the model and has them summarized."""

    type: str = "context_window_summarization"
    model: str | None = None
    from_task: Any = None
    from_agent: Any = None


class ContextWindowSummarizationStartedEvent(ContextWindowSummarizationEvent):
    """``message_count``: the conversation's messages before it is shortened."""

    type: str = "context_window_summarization_started"
    message_count: int | None = None


class ContextWindowSummarizationCompletedEvent(ContextWindowSummarizationEvent):
    """``remaining_count``: the messages left once the older ones are summarized."""

    type: str = "context_window_summarization_completed"
    message_count: int | None = None
    remaining_count: int | None = None


class ContextWindowSummarizationFailedEvent(ContextWindowSummarizationEvent):
    type: str = "context_window_summarization_failed"
    error: str
