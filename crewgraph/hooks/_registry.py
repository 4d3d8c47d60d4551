"""Where hooks live: a global list per kind, plus the ones a crew carries for its own runs.

A crew's hooks reach its nodes through ``RunState.extras[RUN_HOOKS_KEY]`` (set by
the crew runner), so two crews running side by side never see each other's hooks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Literal

__all__ = ["RUN_HOOKS_KEY", "HookKind", "add", "any_hooks", "clear", "hooks_for", "listed", "remove"]

HookKind = Literal[
    "before_llm_call", "after_llm_call", "before_tool_call", "after_tool_call",
    # the interception points of ``crewgraph.hooks.points`` that are not model or tool calls
    "execution_start", "input", "output", "execution_end", "pre_step", "post_step",
]
KINDS: tuple[HookKind, ...] = (
    "before_llm_call", "after_llm_call", "before_tool_call", "after_tool_call",
    "execution_start", "input", "output", "execution_end", "pre_step", "post_step",
)
RUN_HOOKS_KEY = "execution_hooks"

_lock = threading.Lock()
_global: dict[str, list[Callable[..., Any]]] = {kind: [] for kind in KINDS}


def add(kind: HookKind, hook: Callable[..., Any]) -> None:
    if not callable(hook):
        raise TypeError(f"a {kind} hook must be callable, got {type(hook).__name__}")
    with _lock:
        _global[kind].append(hook)


def remove(kind: HookKind, hook: Callable[..., Any]) -> bool:
    with _lock:
        hooks = _global[kind]
        for i, known in enumerate(hooks):
            if known is hook or getattr(known, "__wrapped__", None) is hook:
                del hooks[i]
                return True
    return False


def clear(kind: HookKind) -> int:
    with _lock:
        count = len(_global[kind])
        _global[kind].clear()
        return count


def listed(kind: HookKind) -> list[Callable[..., Any]]:
    with _lock:
        return list(_global[kind])


def hooks_for(kind: HookKind, extras: dict[str, Any] | None) -> list[Callable[..., Any]]:
    """The global hooks of ``kind`` first, then the run's own (a crew's), in registration order."""
    own = (extras or {}).get(RUN_HOOKS_KEY) or {}
    scoped = own.get(kind, ()) if isinstance(own, dict) else ()
    with _lock:
        return [*_global[kind], *scoped]


def any_hooks(kinds: tuple[HookKind, ...], extras: dict[str, Any] | None) -> bool:
    """Whether :func:`hooks_for` would find a hook of any of ``kinds`` (no list is built: a tool
    or model call asks this once per call, and almost always the answer is no)."""
    own = (extras or {}).get(RUN_HOOKS_KEY) or {}
    scoped = own if isinstance(own, dict) else {}
    return any(_global[kind] or scoped.get(kind) for kind in kinds)
