"""One LLM call as nodes make it: rate limits first, then events around the call
(and, in a streaming run, the call's deltas forwarded as they arrive)."""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel

from crewgraph._internal.usage_scope import record_usage
from crewgraph.errors import ConfigurationError, LLMError
from crewgraph.events.llm_events import (
    LLMCallCompletedEvent,
    LLMCallFailedEvent,
    LLMCallStartedEvent,
)
from crewgraph.graph.context import NodeContext
from crewgraph.llm.base import BaseLLM
from crewgraph.llm.settings import DEFAULT_MODEL
from crewgraph.llm.types import LLMResponse, ToolSpec
from crewgraph.nodes._stream import ChunkForwarder

__all__ = ["DEFAULT_MODEL", "call_llm", "resolve_llm"]


def resolve_llm(own: Any, ctx: NodeContext, what: str) -> BaseLLM:
    """The node's own model if it has one, else the run's default; a clear error if neither."""
    llm = own if own is not None else ctx.llm
    if isinstance(llm, str):
        from crewgraph.llm import LLM

        llm = LLM(model=llm)
    if llm is None:
        from crewgraph.llm.settings import default_llm

        return default_llm()  # $CREWGRAPH_MODEL / $MODEL / $OPENAI_MODEL_NAME..., on $BASE_URL if set
    if not isinstance(llm, BaseLLM):
        raise ConfigurationError(f"{what}: llm must be a model name or BaseLLM, got {type(llm).__name__}")
    return llm


async def call_llm(
    ctx: NodeContext,
    llm: BaseLLM,
    messages: list[dict[str, Any]],
    *,
    tools: list[ToolSpec] | None = None,
    response_model: type[BaseModel] | None = None,
    rpm_keys: tuple[str, ...] = (),
    stream: ChunkForwarder | None = None,
    options: dict[str, Any] | None = None,
    where: str | None = None,
) -> LLMResponse:
    """Wait for every rate limiter in ``rpm_keys``, then call the model with events.

    With ``stream`` (see :func:`crewgraph.nodes._stream.chunk_forwarder`) the
    model is asked to stream and each delta is forwarded as it arrives;
    structured calls are never streamed. ``options`` are request parameters for this call
    (an agent's ``max_tokens``). An ``LLMError`` leaves with ``where`` (say "Agent 'Writer' on
    task 'write'") in front of its message: the model's own message names only the model and
    the endpoint, and a crew has many calls. (Nodes that wrap the error themselves give none.)
    """
    for key in rpm_keys:
        limiter = ctx.state.limiters.get(key)
        if limiter is not None:
            await limiter.acquire()
    ctx.emit(
        LLMCallStartedEvent(
            model=llm.model,
            messages=messages,
            tools=[t.name for t in tools or ()],
            response_model=response_model.__name__ if response_model else None,
        )
    )
    start = time.perf_counter()
    streaming = stream is not None and response_model is None
    extra: dict[str, Any] = dict(options or {})
    if streaming:
        extra["on_chunk"] = stream
    try:
        reply = await llm.acall(messages, tools=tools or None, response_model=response_model, emit=ctx.emit, **extra)
    except Exception as exc:
        ctx.emit(LLMCallFailedEvent(model=llm.model, error=str(exc), status_code=getattr(exc, "status_code", None)))
        if isinstance(exc, LLMError):
            _locate(exc, where)
        raise
    record_usage(reply.usage)  # a flow around this call sums it into usage_metrics
    if streaming and stream is not None:
        stream.finish(reply)
    ctx.emit(
        LLMCallCompletedEvent(
            model=llm.model,
            response=reply.content if reply.parsed is None else reply.parsed.model_dump_json(),
            tool_calls=[c.name for c in reply.tool_calls],
            prompt_tokens=reply.usage.prompt_tokens,
            completion_tokens=reply.usage.completion_tokens,
            total_tokens=reply.usage.total_tokens,
            duration_ms=(time.perf_counter() - start) * 1000,
        )
    )
    return reply


def _locate(exc: LLMError, where: str | None) -> None:
    """Put ``where`` in front of the error's message, once (the same object keeps its type,
    ``status_code`` and ``retryable``)."""
    if where and exc.args and isinstance(exc.args[0], str) and not exc.args[0].startswith(where):
        exc.args = (f"{where}: {exc.args[0]}", *exc.args[1:])
