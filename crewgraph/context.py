"""CrewAI's ``crewai.context``: the platform token, the current task id, and ``ExecutionContext``.

``capture_execution_context()`` freezes the execution state of the calling context -- the task
whose agent is working, the flow run, flow and method, the open event scopes and the bus's
last emission -- into a plain pydantic model that can be pickled or sent to another thread;
``apply_execution_context(ctx)`` reinstates it there, so events emitted and kickoffs made in
that thread or task belong to the original execution (their ``parent_event_id`` is the scope
that was open, a crew kicked off there joins the flow's run).

One difference from CrewAI: crewgraph's event bus numbers events process-wide (one
``emission_sequence`` for all runs, not a counter per context), so ``emission_sequence`` and
``last_event_id`` are captured from the bus but not rewound by ``apply_execution_context`` --
rewinding a shared counter would give two events the same number.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import Token
from typing import Any

from pydantic import BaseModel, Field

from crewgraph._internal import execution_vars as _vars

__all__ = [
    "ExecutionContext",
    "apply_execution_context",
    "capture_execution_context",
    "get_current_task_id",
    "get_platform_integration_token",
    "platform_context",
    "reset_current_task_id",
    "set_current_task_id",
    "set_platform_integration_token",
]


def set_platform_integration_token(integration_token: str) -> None:
    """Set the platform integration token for the current context (and what it starts)."""
    _vars.platform_integration_token.set(integration_token)


def get_platform_integration_token() -> str | None:
    """The token set for this context, else ``$CREWAI_PLATFORM_INTEGRATION_TOKEN``, else None."""
    token = _vars.platform_integration_token.get()
    return token if token is not None else os.getenv("CREWAI_PLATFORM_INTEGRATION_TOKEN")


@contextmanager
def platform_context(integration_token: str) -> Iterator[None]:
    """Within the block the platform integration token is ``integration_token``."""
    token = _vars.platform_integration_token.set(integration_token)
    try:
        yield
    finally:
        _vars.platform_integration_token.reset(token)


def set_current_task_id(task_id: str | None) -> Token[str | None]:
    """Make ``task_id`` the current task's id; the token undoes it (``reset_current_task_id``)."""
    return _vars.current_task_id.set(task_id)


def reset_current_task_id(token: Token[str | None]) -> None:
    """Restore the task id that was current before the matching ``set_current_task_id``."""
    _vars.current_task_id.reset(token)


def get_current_task_id() -> str | None:
    """The id of the task whose agent is working in this context (crewgraph sets it while a
    task's agent step runs), or None."""
    return _vars.current_task_id.get()


class ExecutionContext(BaseModel):
    """A snapshot of the execution state of one context (CrewAI's fields).

    ``event_id_stack`` holds the open event scopes, innermost last, as ``(started event id,
    started event type)``; ``feedback_callback_info`` is whatever the capturer passed."""

    current_task_id: str | None = Field(default=None)
    flow_request_id: str | None = Field(default=None)
    flow_id: str | None = Field(default=None)
    flow_method_name: str = Field(default="unknown")

    event_id_stack: tuple[tuple[str, str], ...] = Field(default_factory=tuple)
    last_event_id: str | None = Field(default=None)
    triggering_event_id: str | None = Field(default=None)
    emission_sequence: int = Field(default=0)

    feedback_callback_info: dict[str, Any] | None = Field(default=None)
    platform_token: str | None = Field(default=None)


def capture_execution_context(feedback_callback_info: dict[str, Any] | None = None) -> ExecutionContext:
    """Snapshot the calling context's execution state (no live references are kept).

    ``triggering_event_id`` is None: crewgraph does not track which event triggered a
    handler (``BaseEvent.triggered_by_event_id`` is None too)."""
    from crewgraph.events import _lineage
    from crewgraph.events.bus import crewgraph_event_bus

    sequence, last = crewgraph_event_bus.emission_state()
    return ExecutionContext(
        current_task_id=_vars.current_task_id.get(),
        flow_request_id=_vars.current_flow_request_id.get(),
        flow_id=_vars.current_flow_id.get(),
        flow_method_name=_vars.current_flow_method_name.get(),
        event_id_stack=_lineage.open_scopes(),
        last_event_id=last,
        emission_sequence=sequence,
        feedback_callback_info=feedback_callback_info,
        platform_token=_vars.platform_integration_token.get(),
    )


def apply_execution_context(ctx: ExecutionContext) -> None:
    """Reinstate a snapshot in the current context (a worker thread, another task): the task
    id, the flow ids and method, the platform token and the open event scopes."""
    from crewgraph.events import _lineage

    _vars.current_task_id.set(ctx.current_task_id)
    _vars.current_flow_request_id.set(ctx.flow_request_id)
    _vars.current_flow_id.set(ctx.flow_id)
    _vars.current_flow_method_name.set(ctx.flow_method_name)
    _vars.platform_integration_token.set(ctx.platform_token)
    _lineage.restore_scopes(ctx.event_id_stack)
