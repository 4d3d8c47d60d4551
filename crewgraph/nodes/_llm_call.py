"""One LLM call as nodes make it: rate limits first, then events around the call
(and, in a streaming run, the call's deltas forwarded as they arrive)."""

from __future__ import annotations

import time
import uuid
from typing import Any

from pydantic import BaseModel

from crewgraph._internal.shared_prompt import retained_messages
from crewgraph._internal.usage_scope import record_usage
from crewgraph.errors import ConfigurationError, LLMError
from crewgraph.events.llm_events import (
    LLMCallCompletedEvent,
    LLMCallFailedEvent,
    LLMCallStartedEvent,
    LLMCallType,
)
from crewgraph.graph.context import NodeContext
from crewgraph.hooks import _registry as _hooks
from crewgraph.hooks.types import HookAgent, HookTask, LLMCallHookContext
from crewgraph.llm.base import BaseLLM
from crewgraph.llm.front_door import invoke
from crewgraph.llm.override import model_override
from crewgraph.llm.settings import DEFAULT_MODEL
from crewgraph.llm.types import LLMResponse, ToolSpec
from crewgraph.nodes._stream import ChunkForwarder

__all__ = ["DEFAULT_MODEL", "call_llm", "resolve_llm"]


def resolve_llm(own: Any, ctx: NodeContext, what: str) -> BaseLLM:
    """The node's own model if it has one, else the run's default; a clear error if neither.
    ``--llm``/``$CREWGRAPH_LLM`` (crewgraph.llm.override) wins over both."""
    override = model_override()
    if override is not None:
        return override
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
    agent: HookAgent | None = None,
    task: HookTask | None = None,
    iterations: int = 0,
) -> LLMResponse:
    """Wait for every rate limiter in ``rpm_keys``, then call the model with events.

    With ``stream`` (see :func:`crewgraph.nodes._stream.chunk_forwarder`) the
    model is asked to stream and each delta is forwarded as it arrives;
    structured calls are never streamed. ``options`` are request parameters for this call
    (an agent's ``max_tokens``). An ``LLMError`` leaves with ``where`` (say "Agent 'Writer' on
    task 'write'") in front of its message: the model's own message names only the model and
    the endpoint, and a crew has many calls. (Nodes that wrap the error themselves give none.)

    Execution hooks (:mod:`crewgraph.hooks`) run here, inside the node: before-hooks may
    change ``messages`` in place or block the call (``agent``/``task``/``iterations`` are
    what they are told about the caller); after-hooks may replace the response text.
    """
    llm = model_override() or llm  # --llm / $CREWGRAPH_LLM: no node reaches another model
    for key in rpm_keys:
        limiter = ctx.state.limiters.get(key)
        if limiter is not None:
            await limiter.acquire()
    hook_context: LLMCallHookContext | None = None
    if _hooks.hooks_for("before_llm_call", ctx.state.extras) or _hooks.hooks_for("after_llm_call", ctx.state.extras):
        from crewgraph.hooks.llm_hooks import run_before_llm_call_hooks

        hook_context = LLMCallHookContext(
            messages=messages, llm=llm, agent=agent, task=task, crew=ctx.state.extras.get("crew_name"),
            iterations=iterations, run_id=ctx.run_id, node_id=ctx.node_id, attempt=ctx.attempt,
            input_provider=ctx.state.extras.get("input_provider"),
        )
        await run_before_llm_call_hooks(hook_context, ctx.state.extras, where or "")
    # An event is built only for a bus listener; the run graph's tracer, if that is all
    # there is, gets the call recorded directly (an event costs ~12 us to build and emit).
    tracer = getattr(ctx.emit, "llm_tracer", None)
    listens = getattr(ctx.emit, "listens", ctx.wants)
    tool_names = [t.name for t in tools or ()]
    streaming = stream is not None and response_model is None
    model_name = response_model.__name__ if response_model else None
    call_id: str | None = None  # CrewAI's id shared by the call's events (made only for a listener)
    if listens(LLMCallStartedEvent):
        call_id = _new_call_id()
        ctx.emit(LLMCallStartedEvent(
            model=llm.model, messages=messages, tools=tool_names, response_model=model_name, call_id=call_id,
            from_task=task, from_agent=agent, stream=streaming,
            **_sampling(llm, options),
        ))
    elif tracer is not None:
        tracer.started(ctx.node_id, llm.model, tool_names, model_name, retained_messages(messages))
    start = time.perf_counter()
    extra: dict[str, Any] = dict(options or {})
    if streaming:
        extra["on_chunk"] = stream
    try:
        reply = await invoke(llm, messages, tools=tools or None, response_model=response_model, emit=ctx.emit,
                             from_task=task, from_agent=agent, **extra)
    except Exception as exc:
        status_code = getattr(exc, "status_code", None)
        if listens(LLMCallFailedEvent):
            ctx.emit(LLMCallFailedEvent(model=llm.model, error=str(exc), status_code=status_code,
                                        call_id=call_id or _new_call_id(), from_task=task, from_agent=agent))
        elif tracer is not None:
            tracer.failed(ctx.node_id, str(exc), status_code)
        if isinstance(exc, LLMError):
            _locate(exc, where)
        raise
    record_usage(reply.usage)  # a flow around this call sums it into usage_metrics
    if hook_context is not None:
        reply = await _after_hooks(ctx, hook_context, reply)
    if streaming and stream is not None:
        stream.finish(reply)
    if listens(LLMCallCompletedEvent):
        ctx.emit(
            LLMCallCompletedEvent(
                model=llm.model,
                call_id=call_id or _new_call_id(),
                from_task=task,
                from_agent=agent,
                messages=messages,
                response=reply.content if reply.parsed is None else reply.parsed.model_dump_json(),
                call_type=LLMCallType.TOOL_CALL if reply.tool_calls else LLMCallType.LLM_CALL,
                usage={"prompt_tokens": reply.usage.prompt_tokens,
                       "completion_tokens": reply.usage.completion_tokens,
                       "total_tokens": reply.usage.total_tokens},
                tool_calls=[c.name for c in reply.tool_calls],
                prompt_tokens=reply.usage.prompt_tokens,
                completion_tokens=reply.usage.completion_tokens,
                total_tokens=reply.usage.total_tokens,
                duration_ms=(time.perf_counter() - start) * 1000,
                finish_reason=reply.finish_reason,
            )
        )
    elif tracer is not None:
        usage = reply.usage
        tracer.completed(
            ctx.node_id, llm.model, duration_ms=(time.perf_counter() - start) * 1000,
            prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
            total_tokens=usage.total_tokens, tool_calls=[c.name for c in reply.tool_calls],
            response=reply.content if reply.parsed is None else reply.parsed.model_dump_json(),
            finish_reason=reply.finish_reason,
        )
    return reply


def _new_call_id() -> str:
    return uuid.uuid4().hex


_SAMPLING = ("temperature", "top_p", "max_tokens", "seed", "frequency_penalty", "presence_penalty", "n")


def _sampling(llm: Any, options: dict[str, Any] | None) -> dict[str, Any]:
    """The call's sampling settings for ``LLMCallStartedEvent`` (CrewAI's fields): the model's
    own, overridden by this call's ``options``."""
    found: dict[str, Any] = {}
    for name in _SAMPLING:
        value = (options or {}).get(name, getattr(llm, name, None))
        if isinstance(value, int | float) and not isinstance(value, bool):
            found[name] = value
    stop = getattr(llm, "stop", None)
    if isinstance(stop, str):
        found["stop_sequences"] = [stop]
    elif isinstance(stop, list | tuple) and all(isinstance(x, str) for x in stop):
        found["stop_sequences"] = list(stop)
    return found


async def _after_hooks(ctx: NodeContext, hook_context: LLMCallHookContext, reply: LLMResponse) -> LLMResponse:
    """Run the after-hooks on the reply's text; a replacement becomes the reply's content
    (for a structured reply, the JSON a hook returns is validated into the same model)."""
    from crewgraph.errors import CallbackError
    from crewgraph.hooks.llm_hooks import run_after_llm_call_hooks

    hook_context.response = reply.content if reply.parsed is None else reply.parsed.model_dump_json()
    replaced = await run_after_llm_call_hooks(hook_context, ctx.state.extras)
    if replaced is None:
        return reply
    if reply.parsed is None:
        return reply.model_copy(update={"content": replaced})
    try:
        parsed = type(reply.parsed).model_validate_json(replaced)
    except ValueError as exc:
        raise CallbackError(
            f"an after_llm_call hook replaced a structured {type(reply.parsed).__name__} reply with "
            f"text that does not validate: {exc}", kind="after_llm_call"
        ) from exc
    return reply.model_copy(update={"parsed": parsed})


def _locate(exc: LLMError, where: str | None) -> None:
    """Put ``where`` in front of the error's message, once (the same object keeps its type,
    ``status_code`` and ``retryable``)."""
    if where and exc.args and isinstance(exc.args[0], str) and not exc.args[0].startswith(where):
        exc.args = (f"{where}: {exc.args[0]}", *exc.args[1:])
