"""Running a chain of hooks: in order, sync or async, each one's change seen by the next.

A hook that raises anything but :class:`HookAborted` fails the call with a
:class:`~crewgraph.errors.CallbackError` naming it: a redaction hook that breaks
must not let the unredacted text through silently.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from crewgraph.errors import CallbackError
from crewgraph.hooks.types import HookAborted

__all__ = ["Blocked", "hook_name", "run_chain"]


class Blocked(Exception):
    """A before-hook said no (returned False or raised HookAborted)."""

    def __init__(self, reason: str, source: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.source = source


def hook_name(hook: Callable[..., Any]) -> str:
    inner = getattr(hook, "__wrapped__", hook)
    return str(getattr(inner, "__qualname__", None) or getattr(inner, "__name__", None) or repr(inner))


async def run_chain(kind: str, hooks: list[Callable[..., Any]], context: Any, *, before: bool) -> str | None:
    """Call every hook with ``context``. Before-hooks: raise :class:`Blocked` on the first
    that blocks. After-hooks: the last string returned wins, and is written back into the
    context (``response``/``tool_result``) so the next hook sees it; returned."""
    replaced: str | None = None
    for hook in hooks:
        try:
            value = hook(context)
            if inspect.isawaitable(value):
                value = await value
        except HookAborted as exc:
            if not before:
                raise CallbackError(
                    f"{kind} hook {hook_name(hook)!r} raised HookAborted after the call: only "
                    "before-hooks can block", callback=hook_name(hook), kind=kind
                ) from exc
            raise Blocked(exc.reason, exc.source or hook_name(hook)) from exc
        except Exception as exc:
            raise CallbackError(
                f"{kind} hook {hook_name(hook)!r} raised {type(exc).__name__}: {exc}",
                callback=hook_name(hook),
                kind=kind,
            ) from exc
        if before:
            if value is False:
                raise Blocked("", hook_name(hook))
        elif isinstance(value, str):
            replaced = value
            _write_back(context, value)
    return replaced


def _write_back(context: Any, value: str) -> None:
    if hasattr(context, "tool_result"):
        context.tool_result = value
    else:
        context.response = value
