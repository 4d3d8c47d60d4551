"""One tool call, start to finish: the body of ``ToolCallNode.run``.

Everything that can go wrong with a call the model made is turned into text
the model can act on (unknown tool, bad arguments, usage limit, a raised
exception, a reported :class:`ToolFailure`), and, unless the failure policy is
``ignore``, into a :class:`ToolFailureRecord`. A retryable reported failure is
handed to the scheduler's retry loop first; the ``raise`` policy aborts the
run with :class:`ToolExecutionFailedError` after the failure event is out.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from crewgraph._internal.interpolate import interpolate
from crewgraph.errors import ToolExecutionFailedError
from crewgraph.events.base import BaseEvent
from crewgraph.events.tool_events import (
    ToolExecutionErrorEvent,
    ToolFailureDetectedEvent,
    ToolSelectionErrorEvent,
    ToolUsageErrorEvent,
    ToolUsageFinishedEvent,
    ToolUsageStartedEvent,
    ToolValidateInputErrorEvent,
)
from crewgraph.hooks import _registry as _hooks
from crewgraph.hooks.types import HookAgent, HookTask, ToolCallHookContext
from crewgraph.nodes.tool_call import ToolCallOutcome
from crewgraph.tools import _cache, _call_habits, _messages
from crewgraph.tools._errors import RetryableToolError
from crewgraph.tools._result_cap import cap_result, result_limit
from crewgraph.tools.tool_failure import (
    ToolFailure,
    ToolFailurePolicy,
    ToolFailureReason,
    ToolFailureRecord,
    record_failure,
    resolve_failure_policy,
)

if TYPE_CHECKING:
    from crewgraph.graph.context import NodeContext
    from crewgraph.nodes.tool_call import ToolCallNode

__all__ = ["invoke_tool_call"]


@dataclass
class _Call:
    """The facts of one call shared by every exit path."""

    node: ToolCallNode
    ctx: NodeContext
    args: dict[str, Any] | str
    started: float = field(default_factory=time.perf_counter)
    started_wall: float = field(default_factory=time.time)
    """When the call started, for ``ToolUsageFinishedEvent.started_at`` (a datetime is made only
    for an event someone listens to)."""
    hook: ToolCallHookContext | None = None
    """Set when tool hooks are registered for this run: after-hooks see and may rewrite results."""

    @property
    def agent_role(self) -> str | None:
        """The calling agent's role as the run filled it in ("Analyst of cats", not "... {topic}")."""
        role = self.node.agent_role
        return interpolate(role, self.ctx.inputs) if role else role

    @property
    def task_name(self) -> str | None:
        """The task's name as the run filled it in."""
        name = self.node.task_name
        return interpolate(name, self.ctx.inputs) if name else name

    @property
    def tool_name(self) -> str:
        return self.node.tool.name if self.node.tool is not None else self.node.call.name

    def event_fields(self) -> dict[str, Any]:
        tool = self.node.tool
        return {
            "tool_name": self.tool_name,
            "tool_args": self.args,
            "agent_role": self.agent_role,
            "task_name": self.task_name,
            "tool_class": type(tool).__name__ if tool is not None else None,
            "run_attempts": self.ctx.attempt,
        }

    def emit(self, event_type: type[BaseEvent], **fields: Any) -> None:
        """Publish a tool event, built only when someone listens for its type."""
        if self.ctx.wants(event_type):
            self.ctx.emit(event_type(**self.event_fields(), **fields))

    async def after_hooks(self, text: str, raw: Any = None) -> str:
        """The text the agent reads once the after_tool_call hooks have had their say."""
        if self.hook is None:
            return text
        from crewgraph.hooks.tool_hooks import run_after_tool_call_hooks

        self.hook.tool_result, self.hook.raw_tool_result = text, raw
        replaced = await run_after_tool_call_hooks(self.hook, self.ctx.state.extras)
        return text if replaced is None else replaced

    def finished(self, text: str, *, failure: ToolFailure | None = None, from_cache: bool = False) -> None:
        if not self.ctx.wants(ToolUsageFinishedEvent):
            return
        self.emit(
            ToolUsageFinishedEvent,
            output=text,
            from_cache=from_cache,
            started_at=datetime.fromtimestamp(self.started_wall, UTC),
            finished_at=datetime.now(UTC),
            duration_ms=(time.perf_counter() - self.started) * 1000.0,
            failure=failure,
        )

    def outcome(self, text: str, **extra: Any) -> ToolCallOutcome:
        return ToolCallOutcome(
            call_id=self.node.call.id, tool_name=self.tool_name, text=text, arguments=self.args, **extra
        )


async def invoke_tool_call(node: ToolCallNode, ctx: NodeContext) -> ToolCallOutcome:
    """Run ``node.call`` against ``node.tool`` and say what the model should read."""
    try:
        parsed: dict[str, Any] | None = node.call.parsed_arguments()
        problem = ""
    except ValueError as exc:
        parsed, problem = None, str(exc)
    tool = node.tool
    echoed = False
    if tool is not None and parsed is not None:
        parameters = tool.to_spec().parameters
        parsed = _call_habits.unwrap_arguments(parsed, set(parameters.get("properties") or {}))
        echoed = _call_habits.is_schema_echo(parsed, parameters)
    call = _Call(node=node, ctx=ctx, args=parsed if parsed is not None else node.call.arguments)
    if tool is not None and parsed is not None and _wants_hooks(ctx):
        blocked = await _before_hooks(call, parsed)
        if blocked is not None:
            call.emit(ToolUsageStartedEvent)
            text = await call.after_hooks(blocked)
            call.finished(text)
            return call.outcome(text)
    call.emit(ToolUsageStartedEvent)

    if tool is None:
        message = _messages.unknown_tool_message(node.call.name, node.available)
        call.emit(ToolSelectionErrorEvent, error=message)
        return _failed(call, ToolFailure(message=message, code="unknown_tool", reason=ToolFailureReason.UNKNOWN_TOOL))
    if parsed is None:
        message = _messages.invalid_json_message(tool.name, problem, tool.to_spec().parameters)
        call.emit(ToolValidateInputErrorEvent, error=message)
        return _failed(call, _invalid(message))
    if echoed:  # the schema itself, not values: running it would make the tool invent them
        message = _call_habits.schema_echo_message(tool.name, tool.to_spec().parameters)
        call.emit(ToolValidateInputErrorEvent, error=message)
        return _failed(call, _invalid(message, code="schema_echo"))
    try:
        kwargs = tool.validate_arguments(call.args if isinstance(call.args, dict) else parsed)
    except ValidationError as exc:
        message = _messages.validation_message(tool.name, exc, tool.to_spec().parameters)
        call.emit(ToolValidateInputErrorEvent, error=message)
        return _failed(call, _invalid(message))

    key = _cache.cache_key(tool, kwargs)
    if node.cache:
        hit = _cache.lookup(ctx.state, key)
        if hit is not None:
            text = await call.after_hooks(hit[0], hit[1])
            call.finished(text, from_cache=True)
            return call.outcome(text, raw=hit[1], from_cache=True, reusable=True,
                                result_as_answer=tool.result_as_answer)

    if not tool._reserve_use():
        message = _messages.usage_limit_message(tool.name, tool.max_usage_count)
        failure = ToolFailure(
            message=message, code="usage_limit_exceeded", reason=ToolFailureReason.USAGE_LIMIT
        )
        return _failed(call, failure)

    try:
        raw = await tool._execute((), kwargs)
        text = raw.as_agent_message() if isinstance(raw, ToolFailure) else tool.format_output_for_agent(raw)
        if not tool.result_as_answer:  # an answer is the task's output, not something a model reads
            text = cap_result(text, result_limit(tool.max_result_chars, node.max_result_chars))
    except Exception as exc:
        call.emit(ToolUsageErrorEvent, error=f"{type(exc).__name__}: {exc}")
        if ctx.wants(ToolExecutionErrorEvent):
            ctx.emit(ToolExecutionErrorEvent(
                tool_name=tool.name, tool_args=kwargs, tool_class=type(tool).__name__, error=exc,
                agent_role=call.agent_role, task_name=call.task_name,
            ))
        failure = ToolFailure(
            message=_messages.exception_message(tool.name, exc),
            code=type(exc).__name__,
            reason=ToolFailureReason.EXCEPTION,
            details={"exception_type": f"{type(exc).__module__}.{type(exc).__qualname__}"},
        )
        return _failed(call, failure)

    if isinstance(raw, ToolFailure):
        if raw.retryable and ctx.attempt < node.retry.max_attempts:
            tool._release_use()  # a retried call is still one use
            call.finished(text, failure=raw)
            raise RetryableToolError(tool.name, raw, ctx.attempt)
        return _failed(call, raw, raw=raw)

    stored = node.cache and _cache.store(ctx.state, key, kwargs, (text, raw), tool.cache_function)
    text = await call.after_hooks(text, raw)
    call.finished(text)
    return call.outcome(text, raw=raw, reusable=stored, result_as_answer=tool.result_as_answer)


def _wants_hooks(ctx: NodeContext) -> bool:
    return _hooks.any_hooks(_TOOL_HOOKS, ctx.state.extras)


_TOOL_HOOKS: tuple[_hooks.HookKind, ...] = ("before_tool_call", "after_tool_call")


async def _before_hooks(call: _Call, parsed: dict[str, Any]) -> str | None:
    """Run the before_tool_call hooks on ``parsed`` (changed in place, then validated like the
    model's own arguments); the message the agent reads instead if one blocked the call."""
    from crewgraph.hooks.tool_hooks import run_before_tool_call_hooks

    node, ctx = call.node, call.ctx
    call.hook = ToolCallHookContext(
        tool_name=call.tool_name,
        tool_input=parsed,
        tool=node.tool,
        agent=HookAgent(call.agent_role) if call.agent_role else None,
        task=HookTask(call.task_name) if call.task_name else None,
        crew=ctx.state.extras.get("crew_name"),
        run_id=ctx.run_id,
        node_id=ctx.node_id,
        attempt=ctx.attempt,
        input_provider=ctx.state.extras.get("input_provider"),
    )
    blocked = await run_before_tool_call_hooks(call.hook, ctx.state.extras)
    call.args = call.hook.tool_input
    return blocked


def _invalid(message: str, code: str = "invalid_arguments") -> ToolFailure:
    return ToolFailure(message=message, code=code, reason=ToolFailureReason.INVALID_INPUT)


def _failed(call: _Call, failure: ToolFailure, *, raw: Any = None) -> ToolCallOutcome:
    """Apply the failure policy: ignore -> nothing; warn -> record + event; raise -> and abort."""
    node, ctx = call.node, call.ctx
    own_limit = node.tool.max_result_chars if node.tool is not None else None
    text = cap_result(failure.as_agent_message(), result_limit(own_limit, node.max_result_chars))
    own = node.tool.tool_failure_policy if node.tool is not None else None
    policy = resolve_failure_policy((own, *node.policies))
    if policy is ToolFailurePolicy.IGNORE:
        call.finished(text)
        return call.outcome(text, raw=raw)

    # the names as the run filled them in: "task 'look up owls'", not "'look up {topic}'"
    role, task_name = call.agent_role, call.task_name
    record = ToolFailureRecord(
        tool_name=call.tool_name,
        failure=failure,
        tool_args=call.args,
        agent_role=role,
        task_name=task_name,
        policy=policy,
        call_id=node.call.id,
        attempts=max(1, ctx.attempt),
    )
    record_failure(record)  # an open tool_failure_collector() around the kickoff sees it too
    call.finished(text, failure=failure)
    call.emit(ToolFailureDetectedEvent, failure=failure, policy=policy.value)
    if policy is ToolFailurePolicy.RAISE:
        task = f"task {task_name!r}" if task_name else "its task"
        raise ToolExecutionFailedError(
            f"Tool {call.tool_name!r} failed in {task} ({failure.reason.value}) under the "
            f"'raise' tool failure policy: {failure.message}",
            record=record,
        )
    return call.outcome(text, raw=raw, failure=record)
