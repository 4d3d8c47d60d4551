"""CrewAI's one hook API over every interception point: ``@on(InterceptionPoint.X)``.

The four model and tool points are the hooks of :mod:`crewgraph.hooks.llm_hooks` and
:mod:`crewgraph.hooks.tool_hooks` (``@on(PRE_MODEL_CALL)`` is ``@before_llm_call``: one
ordered list per point, the same contexts, ``False``/``HookAborted`` blocks, a returned string
replaces the response or tool result). The other points get a typed context whose
``payload`` is what may be changed -- in place, or by returning a replacement:

========================  ===========================================  ==========================
point                     when                                         ``payload``
========================  ===========================================  ==========================
``EXECUTION_START``       a crew or flow kickoff begins                its inputs (a dict)
``INPUT``                 the inputs are final (after before_kickoff)  the inputs
``OUTPUT``                the crew's output is final                   the ``CrewOutput``
``EXECUTION_END``         the kickoff ended (``status``, ``error``)    the output (None if failed)
========================  ===========================================  ==========================

``PRE_STEP``/``POST_STEP`` are a crew task's edges (``StepContext``, ``kind="task"``; see
:mod:`crewgraph.hooks.steps`): the context the agent starts with, then the task's final output;
and a flow method's (``kind="flow_method"``; see :mod:`crewgraph.hooks.flow_steps`): its call's
arguments, then its return value.

``HookAborted`` raised by a hook stops the operation with its reason. Any other exception
fails it with a ``CallbackError`` naming the hook (crewgraph's rule for every hook: a broken
hook is never skipped silently; CrewAI logs and continues). Hooks are synchronous callables;
a coroutine function is awaited where the point is async. ``agents=`` / ``tools=`` filter by
agent role and tool name; on a method of a ``@CrewBase`` class, ``@on`` registers the hook
for the crew that class builds only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal

from crewgraph.hooks import _registry
from crewgraph.hooks._registry import HookKind

__all__ = [
    "EXECUTION_BOUNDARY_POINTS",
    "ExecutionEndContext",
    "ExecutionStartContext",
    "HookFn",
    "InputContext",
    "InterceptionContext",
    "InterceptionPoint",
    "OutputContext",
    "Reducer",
    "StepContext",
    "adispatch",
    "clear_all_hooks",
    "clear_hooks",
    "dispatch",
    "get_hooks",
    "has_hooks",
    "kind_of",
    "on",
    "register_hook",
    "unregister_hook",
]

HookFn = Callable[[Any], Any]
Reducer = Callable[[Any, Any], bool]
"""``(context, returned value) -> changed?``: maps a hook's return value onto the context."""


class InterceptionPoint(str, Enum):
    """Where a hook runs (see the module docstring)."""

    EXECUTION_START = "execution_start"
    INPUT = "input"
    OUTPUT = "output"
    EXECUTION_END = "execution_end"
    PRE_MODEL_CALL = "pre_model_call"
    POST_MODEL_CALL = "post_model_call"
    PRE_TOOL_CALL = "pre_tool_call"
    POST_TOOL_CALL = "post_tool_call"
    PRE_STEP = "pre_step"
    POST_STEP = "post_step"


EXECUTION_BOUNDARY_POINTS: frozenset[InterceptionPoint] = frozenset({
    InterceptionPoint.EXECUTION_START,
    InterceptionPoint.INPUT,
    InterceptionPoint.OUTPUT,
    InterceptionPoint.EXECUTION_END,
})
"""The points at the edges of a whole execution (a crew or flow kickoff), not of one step or call."""

_LEGACY: dict[InterceptionPoint, HookKind] = {
    InterceptionPoint.PRE_MODEL_CALL: "before_llm_call",
    InterceptionPoint.POST_MODEL_CALL: "after_llm_call",
    InterceptionPoint.PRE_TOOL_CALL: "before_tool_call",
    InterceptionPoint.POST_TOOL_CALL: "after_tool_call",
}


def kind_of(point: InterceptionPoint | str) -> HookKind:
    """The registry list a point's hooks live in."""
    try:
        point = InterceptionPoint(point)
    except ValueError:
        raise ValueError(f"unknown interception point {point!r}; one of "
                         f"{', '.join(p.name for p in InterceptionPoint)}") from None
    legacy = _LEGACY.get(point)
    return legacy if legacy is not None else point.value  # type: ignore[return-value]


# -- contexts -------------------------------------------------------------------------------

@dataclass
class InterceptionContext:
    """What a hook at a non-call point gets. ``payload`` is the value it may change."""

    payload: Any = None
    agent: Any = None
    agent_role: str | None = None
    task: Any = None
    crew: Any = None
    flow: Any = None


@dataclass
class ExecutionStartContext(InterceptionContext):
    """``EXECUTION_START``: a kickoff begins; ``payload`` (and ``inputs``) are its inputs."""

    inputs: dict[str, Any] = field(default_factory=dict)


@dataclass
class InputContext(InterceptionContext):
    """``INPUT``: the run's final inputs (``payload``)."""

    inputs: dict[str, Any] = field(default_factory=dict)


@dataclass
class OutputContext(InterceptionContext):
    """``OUTPUT``: the run's final output (``payload``)."""

    output: Any = None


@dataclass
class ExecutionEndContext(InterceptionContext):
    """``EXECUTION_END``: the kickoff ended, ``"completed"`` or ``"failed"`` (then ``error``)."""

    output: Any = None
    status: Literal["completed", "failed"] = "completed"
    error: BaseException | None = None


@dataclass
class StepContext(InterceptionContext):
    """``PRE_STEP``/``POST_STEP`` of a task (``kind="task"``) or a flow method
    (``kind="flow_method"``); ``step_name`` is the task's or the method's name."""

    kind: str | None = None
    step_name: str | None = None
    output: Any = None


# -- registration ---------------------------------------------------------------------------

def register_hook(point: InterceptionPoint, hook: HookFn) -> None:
    """Run ``hook(context)`` at ``point`` in every run (after the hooks registered before it)."""
    _registry.add(kind_of(point), hook)


def unregister_hook(point: InterceptionPoint, hook: HookFn) -> bool:
    """Remove ``hook`` (as given to ``register_hook`` or ``@on``) from ``point``; True if it was there."""
    return _registry.remove(kind_of(point), hook)


def get_hooks(point: InterceptionPoint) -> list[HookFn]:
    """The global hooks of ``point``, in the order they run."""
    return _registry.listed(kind_of(point))


def clear_hooks(point: InterceptionPoint) -> int:
    """Remove every global hook of ``point``; how many there were."""
    return _registry.clear(kind_of(point))


def clear_all_hooks() -> None:
    """Remove every global hook of every point (the call hooks of the old decorators too)."""
    for kind in _registry.KINDS:
        _registry.clear(kind)


def _filtered(func: HookFn, agents: Sequence[str] | None, tools: Sequence[str] | None) -> HookFn:
    """``func`` run only for those agents and tools; a context that names neither runs it."""
    import functools
    import inspect

    roles = frozenset(agents or ())
    names = frozenset(tools or ())

    def wanted(ctx: Any) -> bool:
        tool = getattr(ctx, "tool_name", None)
        if names and tool is not None and tool not in names:
            return False
        role = getattr(getattr(ctx, "agent", None), "role", None) or getattr(ctx, "agent_role", None)
        return not (roles and role is not None and role not in roles)

    if inspect.iscoroutinefunction(func):
        @functools.wraps(func)
        async def filtered_async(*args: Any) -> Any:
            return await func(*args) if wanted(args[-1]) else None

        return filtered_async

    @functools.wraps(func)
    def filtered(*args: Any) -> Any:
        return func(*args) if wanted(args[-1]) else None

    return filtered


def on(
    point: InterceptionPoint, *, agents: list[str] | None = None, tools: list[str] | None = None
) -> Callable[[HookFn], HookFn]:
    """Decorator: register the function as a hook at ``point`` (see the module docstring)."""
    kind = kind_of(point)

    def decorator(func: HookFn) -> HookFn:
        from crewgraph.hooks.decorators import HOOK_MARKERS, _is_method

        hook = _filtered(func, agents, tools) if (agents or tools) else func
        if _is_method(func):
            setattr(hook, HOOK_MARKERS[kind], True)
            return hook
        _registry.add(kind, hook)
        if hook is not func:
            func._registered_hook = hook  # type: ignore[attr-defined]  # unregister_hook(point, func)
        return hook

    return decorator


# -- running ----------------------------------------------------------------------------------

def _replace_payload(ctx: Any, value: Any) -> bool:
    if value is not None and hasattr(ctx, "payload"):
        ctx.payload = value
        return True
    return False


def _hook_failed(kind: str, hook: HookFn, exc: Exception) -> Exception:
    from crewgraph.errors import CallbackError
    from crewgraph.hooks._run import hook_name

    return CallbackError(f"{kind} hook {hook_name(hook)!r} raised {type(exc).__name__}: {exc}",
                         callback=hook_name(hook), kind=kind)


def _aborted(hook: HookFn, aborted: Any) -> None:
    from crewgraph.hooks._run import hook_name

    if aborted.source is None:
        aborted.source = hook_name(hook)


def dispatch(
    point: InterceptionPoint,
    ctx: Any,
    *,
    reducer: Reducer | None = None,
    verbose: bool = True,
    extras: dict[str, Any] | None = None,
) -> Any:
    """Run ``point``'s hooks (global, then the run's own from ``extras``) on ``ctx``; returns it.

    A non-None return value replaces ``ctx.payload`` (or goes through ``reducer``).
    ``HookAborted`` propagates; any other exception becomes a ``CallbackError`` naming the hook.
    ``verbose`` is accepted for CrewAI's signature (failures are raised, not printed). An
    async hook cannot run here: crewgraph's own call sites use :func:`adispatch`."""
    import inspect

    from crewgraph.hooks.types import HookAborted

    kind = kind_of(point)
    apply = reducer if reducer is not None else _replace_payload
    for hook in _registry.hooks_for(kind, extras):
        try:
            value = hook(ctx)
            if inspect.isawaitable(value):
                close = getattr(value, "close", None)
                if callable(close):
                    close()
                raise TypeError("an async hook cannot run in a sync dispatch()")
            apply(ctx, value)
        except HookAborted as aborted:
            _aborted(hook, aborted)
            raise
        except Exception as exc:
            raise _hook_failed(kind, hook, exc) from exc
    return ctx


async def adispatch(
    point: InterceptionPoint, ctx: Any, *, reducer: Reducer | None = None, extras: dict[str, Any] | None = None
) -> Any:
    """:func:`dispatch` for async call sites: a hook that returns an awaitable is awaited."""
    import inspect

    from crewgraph.hooks.types import HookAborted

    kind = kind_of(point)
    apply = reducer if reducer is not None else _replace_payload
    for hook in _registry.hooks_for(kind, extras):
        try:
            value = hook(ctx)
            if inspect.isawaitable(value):
                value = await value
            apply(ctx, value)
        except HookAborted as aborted:
            _aborted(hook, aborted)
            raise
        except Exception as exc:
            raise _hook_failed(kind, hook, exc) from exc
    return ctx


def has_hooks(point: InterceptionPoint, extras: dict[str, Any] | None = None) -> bool:
    """Whether anything is registered at ``point`` (so a call site can skip building a context)."""
    return bool(_registry.hooks_for(kind_of(point), extras))
