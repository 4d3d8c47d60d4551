"""When a task must run through ``Agent.execute_task`` (CrewAI's seam) instead of the engine's step.

CrewAI runs every task through ``agent.execute_task(task, context, tools)``, so
users customise an agent by subclassing ``Agent`` and overriding
``execute_task`` (or ``aexecute_task``), or by patching ``Agent.execute_task``
in a test. crewgraph compiles a stock agent's task straight to an
``agent_step`` node (no detour through the facade); :func:`routes_through_execute_task`
tells the compiler when that would skip user code, and the task then compiles
to an ``external_agent`` node that calls the override.

An override that calls ``super().execute_task(...)`` reaches the default
implementation, which runs the task on the engine (a one-task run). While it
does, :func:`engine_path` marks the agent, so compiling that run does not send
the task back to the override.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__ = ["engine_path", "on_engine_path", "remember_defaults", "routes_through_execute_task"]

_ON_ENGINE: ContextVar[frozenset[Any]] = ContextVar("crewgraph_agents_on_engine", default=frozenset())
_DEFAULTS: dict[str, Any] = {}


def remember_defaults(execute_task: Any, aexecute_task: Any) -> None:
    """Record ``Agent``'s own methods (called once, where ``Agent`` is defined)."""
    _DEFAULTS["execute_task"] = execute_task
    _DEFAULTS["aexecute_task"] = aexecute_task


def overridden(agent: Any, name: str) -> bool:
    """Whether ``agent``'s class (or a patch of it) replaces ``Agent``'s ``name``."""
    return getattr(type(agent), name, None) is not _DEFAULTS.get(name)


def routes_through_execute_task(agent: Any) -> bool:
    """True when ``agent`` (an ``Agent``) has an overridden or patched ``execute_task``/``aexecute_task``
    and is not already running the default implementation."""
    if agent.id in _ON_ENGINE.get():
        return False
    return overridden(agent, "execute_task") or overridden(agent, "aexecute_task")


@contextmanager
def engine_path(agent: Any) -> Iterator[None]:
    """Run what is inside on the engine for ``agent`` (the default ``execute_task``)."""
    token = _ON_ENGINE.set(_ON_ENGINE.get() | {agent.id})
    try:
        yield
    finally:
        _ON_ENGINE.reset(token)


def on_engine_path() -> bool:
    """Whether this code runs inside the default ``execute_task`` of some agent (a task's inner
    one-task run): its task boundary was already reported by the outer task."""
    return bool(_ON_ENGINE.get())
