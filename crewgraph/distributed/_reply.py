"""What a worker's reply does on the driver.

A step that ran on a worker comes back as a reply: its stream chunks, the events it built (for
the listeners of this process: they are emitted here, in order), the model calls it recorded
for the run graph, its tool-cache entries, tool uses and tokens, and its result or its error.
Applying them here keeps a Ray run's observable side the same as a local run's.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from crewgraph.distributed._worker import TraceCall

if TYPE_CHECKING:
    from crewgraph.graph.context import NodeContext
    from crewgraph.graph.node import NodeResult

__all__ = ["apply_reply", "apply_state", "located", "record_usage"]


def apply_reply(ctx: NodeContext, reply: Any, tool: Any) -> NodeResult:
    """A worker's reply on the driver: its stream chunks, events (re-emitted here, in
    order), tool-cache entries, tool uses and tokens; then its result or its error."""
    state = ctx.state
    if reply.chunks and state.stream is not None:
        for chunk in reply.chunks:
            state.stream(chunk)
    tracer: Any = None
    for event in reply.events:
        if type(event) is TraceCall:  # a model call recorded on the worker, for the run graph
            if tracer is None:
                tracer = getattr(ctx.emit, "llm_tracer", None)
            if tracer is not None:
                getattr(tracer, event.method)(*event.args, **event.kwargs)
        else:
            ctx.emit(event)
    if reply.tool_cache:
        with state.lock:
            state.tool_cache.update(reply.tool_cache)
    if reply.tool_uses and tool is not None and hasattr(tool, "current_usage_count"):
        tool.current_usage_count += reply.tool_uses
    record_usage(reply.usage)
    if reply.error is not None:
        raise located(reply.error, reply.pid)
    result: NodeResult = reply.result
    return result


def apply_state(state: Any, changes: dict[str, Any], removed: list[str]) -> None:
    """A method's changes to ``self.state`` on the worker, applied to the driver's state."""
    if state is None:
        return
    if isinstance(state, dict):
        state.update(changes)
        for key in removed:
            state.pop(key, None)
        return
    for key, value in changes.items():
        setattr(state, key, value)


def record_usage(usage: Any) -> None:
    """Tokens a worker spent, counted in this process's usage scope (``usage_metrics``)."""
    if usage is not None and getattr(usage, "total_tokens", None):
        from crewgraph._internal.usage_scope import record_usage as record

        record(usage)


def located(error: BaseException, pid: int) -> BaseException:
    """A worker's error, noted with the worker it came from (a cancellation passes as is)."""
    if isinstance(error, asyncio.CancelledError):
        return error
    try:
        error.add_note(f"(raised on a Ray worker, pid {pid})")
    except Exception:
        pass
    return error
