"""CrewAI's event lineage: ``parent_event_id`` and ``started_event_id``, stamped by the bus.

A *started* event (``task_started``, ``llm_call_started``...) opens a scope; events
emitted inside it get it as ``parent_event_id``; its *ending* event (``task_completed``
or ``task_failed``...) closes it, gets the started event's id as ``started_event_id``
and the scope around it as its parent. CrewAI keeps the scopes on a context-variable
stack; so does crewgraph, for code that runs in one context (a node's coroutine, a
memory call, a flow method). A graph runs its nodes as separate asyncio tasks, so a
started event and its ending event may be emitted from different contexts (a task
starts in its agent node and completes in the runner): an ending event that finds no
started event on its stack is paired through a registry keyed by the fields both carry
(run id, task, agent, tool, method, call id...).

Only events that are built take part: an event nobody listens to is never built
(issue 28), so it has no id to link to. A started event opens a scope only when someone
listens to its ending events too -- otherwise nothing would ever close it, and it
would become the parent of everything after it.
"""

from __future__ import annotations

import contextvars
import threading
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

from crewgraph.events.base import BaseEvent

__all__ = ["ENDS", "PAIRS", "link", "open_scopes", "restore_scopes"]

PAIRS: dict[str, str] = {
    "flow_finished": "flow_started",
    "flow_paused": "flow_started",
    "flow_failed": "flow_started",
    "method_execution_finished": "method_execution_started",
    "method_execution_failed": "method_execution_started",
    "crew_kickoff_completed": "crew_kickoff_started",
    "crew_kickoff_failed": "crew_kickoff_started",
    "crew_train_completed": "crew_train_started",
    "crew_train_failed": "crew_train_started",
    "crew_test_completed": "crew_test_started",
    "crew_test_failed": "crew_test_started",
    "agent_execution_completed": "agent_execution_started",
    "agent_execution_error": "agent_execution_started",
    "agent_evaluation_completed": "agent_evaluation_started",
    "agent_evaluation_failed": "agent_evaluation_started",
    "lite_agent_execution_completed": "lite_agent_execution_started",
    "lite_agent_execution_error": "lite_agent_execution_started",
    "task_completed": "task_started",
    "task_failed": "task_started",
    "llm_call_completed": "llm_call_started",
    "llm_call_failed": "llm_call_started",
    "llm_guardrail_completed": "llm_guardrail_started",
    "tool_usage_finished": "tool_usage_started",
    "tool_usage_error": "tool_usage_started",
    "mcp_connection_completed": "mcp_connection_started",
    "mcp_connection_failed": "mcp_connection_started",
    "mcp_tool_execution_completed": "mcp_tool_execution_started",
    "mcp_tool_execution_failed": "mcp_tool_execution_started",
    "memory_retrieval_completed": "memory_retrieval_started",
    "memory_retrieval_failed": "memory_retrieval_started",
    "memory_save_completed": "memory_save_started",
    "memory_save_failed": "memory_save_started",
    "memory_query_completed": "memory_query_started",
    "memory_query_failed": "memory_query_started",
    "knowledge_query_completed": "knowledge_query_started",
    "knowledge_query_failed": "knowledge_query_started",
    "knowledge_search_query_completed": "knowledge_search_query_started",
    "knowledge_search_query_failed": "knowledge_search_query_started",
    "agent_reasoning_completed": "agent_reasoning_started",
    "agent_reasoning_failed": "agent_reasoning_started",
    # families CrewAI does not pair, paired the same way here
    "checkpoint_completed": "checkpoint_started",
    "checkpoint_failed": "checkpoint_started",
    "checkpoint_restore_completed": "checkpoint_restore_started",
    "checkpoint_restore_failed": "checkpoint_restore_started",
    "checkpoint_fork_completed": "checkpoint_fork_started",
    "checkpoint_fork_failed": "checkpoint_fork_started",
    "context_window_summarization_completed": "context_window_summarization_started",
    "context_window_summarization_failed": "context_window_summarization_started",
    "plan_step_completed": "plan_step_started",
    "skill_discovery_completed": "skill_discovery_started",
    "conversation_turn_completed": "conversation_turn_started",
    "conversation_turn_failed": "conversation_turn_started",
}
"""Ending event type -> the started event type it closes."""

ENDS: dict[str, tuple[str, ...]] = {}
for _end, _start in PAIRS.items():
    ENDS[_start] = (*ENDS.get(_start, ()), _end)
"""Started event type -> the ending types that close it."""

_IDENTITY = ("run_id", "crew_name", "flow_name", "method_name", "task_name", "agent_role", "call_id",
             "tool_name", "server_name", "step_number", "session_id", "location", "branch", "iteration")
"""Fields a started event and its ending event both carry with the same value."""

_MAX_DEPTH = 100
_MAX_OPEN = 4096

_Scope = tuple[str, tuple[Any, ...]]
"""An open scope on the stack: (started event id, its pairing key)."""

_stack: contextvars.ContextVar[tuple[_Scope, ...]] = contextvars.ContextVar(
    "crewgraph_event_scopes", default=()
)


class _Open:
    """Started events not closed yet, by (type, identity): the cross-context pairing."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: OrderedDict[tuple[Any, ...], deque[tuple[str, str | None]]] = OrderedDict()
        self._count = 0

    def add(self, key: tuple[Any, ...], event_id: str, parent: str | None) -> None:
        with self._lock:
            self._open.setdefault(key, deque()).append((event_id, parent))
            self._count += 1
            while self._count > _MAX_OPEN:  # ends that never came: forget the oldest
                _key, waiting = self._open.popitem(last=False)
                self._count -= len(waiting)

    def close(self, key: tuple[Any, ...], event_id: str | None = None) -> tuple[str, str | None] | None:
        """The newest open started event under ``key`` (or the one with ``event_id``), removed:
        a retried step's ending event closes its last attempt, as the stack would."""
        with self._lock:
            waiting = self._open.get(key)
            if not waiting:
                return None
            found = waiting[-1]
            if event_id is not None:
                found = next((w for w in waiting if w[0] == event_id), None)  # type: ignore[assignment]
                if found is None:
                    return None
            waiting.remove(found)
            self._count -= 1
            if not waiting:
                del self._open[key]
            return found


_open = _Open()
_BY_TYPE: dict[str, list[type[BaseEvent]]] = {}


def _classes(event_type: str) -> list[type[BaseEvent]]:
    """The event classes whose ``type`` is ``event_type`` (looked up once, then cached)."""
    found = _BY_TYPE.get(event_type)
    if found is None:
        found = [c for c in _all_subclasses(BaseEvent) if c.event_type == event_type]
        _BY_TYPE[event_type] = found
    return found


def _all_subclasses(cls: type[BaseEvent]) -> list[type[BaseEvent]]:
    out: list[type[BaseEvent]] = []
    todo = list(cls.__subclasses__())
    while todo:
        c = todo.pop()
        out.append(c)
        todo.extend(c.__subclasses__())
    return out


def _key(start_type: str, event: BaseEvent) -> tuple[Any, ...]:
    values = event.__dict__
    return (start_type, *(str(values.get(f)) if values.get(f) is not None else None for f in _IDENTITY))


def open_scopes() -> tuple[tuple[str, str], ...]:
    """The open scopes of this context, innermost last, as ``(started event id, its type)``
    (CrewAI's ``event_id_stack``; ``crewgraph.context.capture_execution_context``)."""
    return tuple((event_id, str(key[0])) for event_id, key in _stack.get())


def restore_scopes(scopes: tuple[tuple[str, str], ...]) -> None:
    """Make ``scopes`` (from :func:`open_scopes`, maybe of another context) this context's open
    scopes: later events get the innermost as parent. A scope's ending event emitted here is
    paired through the registry (the snapshot has no identity key) and closes it on this stack."""
    _stack.set(tuple((event_id, (event_type,)) for event_id, event_type in scopes)[-_MAX_DEPTH:])


def link(event: BaseEvent, listened: Callable[[type[BaseEvent]], bool]) -> None:
    """Set ``event``'s ``parent_event_id`` / ``started_event_id`` and open or close its scope."""
    kind = event.type
    stack = _stack.get()
    start = PAIRS.get(kind)
    if start is not None:
        _close(event, start, stack)
        return
    if event.parent_event_id is None and stack:
        event.parent_event_id = stack[-1][0]
    ends = ENDS.get(kind)
    if ends and any(listened(c) for e in ends for c in _classes(e)):
        key = _key(kind, event)
        _stack.set((*stack[-(_MAX_DEPTH - 1):], (event.event_id, key)))
        _open.add(key, event.event_id, event.parent_event_id)


def _close(event: BaseEvent, start: str, stack: tuple[_Scope, ...]) -> None:
    key = _key(start, event)
    for index in range(len(stack) - 1, -1, -1):
        if stack[index][1] == key:
            started = stack[index][0]
            _stack.set(stack[:index])
            _open.close(key, started)
            parent = stack[index - 1][0] if index > 0 else None
            break
    else:
        found = _open.close(key)
        if found is None:
            if event.parent_event_id is None and stack:
                event.parent_event_id = stack[-1][0]
            return
        started, parent = found
        restored = [i for i, (event_id, _) in enumerate(stack) if event_id == started]
        if restored:  # a scope restore_scopes put here: it ends now
            _stack.set(stack[:restored[-1]])
    if event.started_event_id is None:
        event.started_event_id = started
    if event.parent_event_id is None:
        event.parent_event_id = parent
