"""``@before_llm_call`` / ``@after_llm_call`` / ``@before_tool_call`` / ``@after_tool_call``.

On a plain function the decorator registers the hook globally (every crew).
On a method of a ``@CrewBase`` class (first parameter ``self``) it only marks
it: the ``@crew`` method gives the crew it builds these hooks, bound to the
instance, and they run for that crew's calls alone. ``agents=[roles]`` limits a
hook to those agents, ``tools=[names]`` a tool hook to those tools. Both forms
work bare (``@before_llm_call``) and called (``@before_llm_call(agents=[...])``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, overload

from crewgraph.hooks import _registry
from crewgraph.hooks._registry import HookKind

__all__ = ["HOOK_MARKERS", "after_llm_call", "after_tool_call", "before_llm_call", "before_tool_call"]

F = TypeVar("F", bound=Callable[..., Any])

HOOK_MARKERS: dict[HookKind, str] = {
    "before_llm_call": "is_before_llm_call_hook",
    "after_llm_call": "is_after_llm_call_hook",
    "before_tool_call": "is_before_tool_call_hook",
    "after_tool_call": "is_after_tool_call_hook",
    # ``@on(point)`` on a @CrewBase method, for the points that are not model or tool calls
    "execution_start": "is_execution_start_hook",
    "input": "is_input_hook",
    "output": "is_output_hook",
    "execution_end": "is_execution_end_hook",
    "pre_step": "is_pre_step_hook",
    "post_step": "is_post_step_hook",
}


def _is_method(func: Callable[..., Any]) -> bool:
    try:
        params = list(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return False
    return bool(params) and params[0] == "self"


def _wrap(kind: HookKind, func: F, agents: Sequence[str] | None, tools: Sequence[str] | None) -> F:
    roles = frozenset(agents) if agents else None
    names = frozenset(tools) if tools else None
    hook: Callable[..., Any] = func
    if roles is not None or names is not None:

        def _wanted(context: Any) -> bool:
            if roles is not None and (context.agent is None or context.agent.role not in roles):
                return False
            return names is None or getattr(context, "tool_name", None) in names

        if inspect.iscoroutinefunction(func):

            @functools.wraps(func)
            async def filtered_async(*args: Any) -> Any:
                return await func(*args) if _wanted(args[-1]) else None

            hook = filtered_async
        else:

            @functools.wraps(func)
            def filtered(*args: Any) -> Any:
                return func(*args) if _wanted(args[-1]) else None

            hook = filtered
    if _is_method(func):
        setattr(hook, HOOK_MARKERS[kind], True)
    else:
        _registry.add(kind, hook)
    return hook  # type: ignore[return-value]


def _decorator(kind: HookKind, func: Any, agents: Sequence[str] | None, tools: Sequence[str] | None) -> Any:
    if func is not None:
        return _wrap(kind, func, agents, tools)
    return lambda f: _wrap(kind, f, agents, tools)


@overload
def before_llm_call(func: F) -> F: ...
@overload
def before_llm_call(*, agents: Sequence[str] | None = None) -> Callable[[F], F]: ...
def before_llm_call(func: Any = None, *, agents: Sequence[str] | None = None) -> Any:
    """Run before every LLM call: change ``context.messages`` in place; ``False`` blocks."""
    return _decorator("before_llm_call", func, agents, None)


@overload
def after_llm_call(func: F) -> F: ...
@overload
def after_llm_call(*, agents: Sequence[str] | None = None) -> Callable[[F], F]: ...
def after_llm_call(func: Any = None, *, agents: Sequence[str] | None = None) -> Any:
    """Run after every LLM call: return a string to replace ``context.response``."""
    return _decorator("after_llm_call", func, agents, None)


@overload
def before_tool_call(func: F) -> F: ...
@overload
def before_tool_call(
    *, tools: Sequence[str] | None = None, agents: Sequence[str] | None = None
) -> Callable[[F], F]: ...
def before_tool_call(
    func: Any = None, *, tools: Sequence[str] | None = None, agents: Sequence[str] | None = None
) -> Any:
    """Run before every tool call: change ``context.tool_input`` in place; ``False`` blocks."""
    return _decorator("before_tool_call", func, agents, tools)


@overload
def after_tool_call(func: F) -> F: ...
@overload
def after_tool_call(
    *, tools: Sequence[str] | None = None, agents: Sequence[str] | None = None
) -> Callable[[F], F]: ...
def after_tool_call(
    func: Any = None, *, tools: Sequence[str] | None = None, agents: Sequence[str] | None = None
) -> Any:
    """Run after every tool call: return a string to replace ``context.tool_result``."""
    return _decorator("after_tool_call", func, agents, tools)


def crew_hooks(instance: Any) -> dict[str, list[Callable[..., Any]]]:
    """The hooks a ``@CrewBase`` instance's marked methods define, bound to it, by kind."""
    found: dict[str, list[Callable[..., Any]]] = {}
    for kind, marker in HOOK_MARKERS.items():
        for klass in reversed(type(instance).__mro__):
            for name, value in vars(klass).items():
                if getattr(value, marker, False) is True:
                    found.setdefault(kind, []).append(getattr(instance, name))
    return found
