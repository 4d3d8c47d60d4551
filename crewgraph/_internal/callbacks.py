"""Calling user callbacks off the scheduler's thread, with errors that name the callback.

``step_callback``, ``task_callback`` and ``Task.callback`` are user code: one
that sleeps or does I/O on the scheduler's loop stalls every node of the run,
and one that raises used to surface as a failure of whichever agent node
called it. Here a sync callback runs in a worker thread (with the caller's
context variables) while the loop goes on; an async one is awaited; an
exception becomes a :class:`~crewgraph.errors.CallbackError` naming it.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

from crewgraph.errors import CallbackError

__all__ = ["call_user_callback", "callback_name"]


def callback_name(callback: Callable[..., Any]) -> str:
    """How a callback is named in errors: ``module.qualname`` when it has one."""
    qualname = getattr(callback, "__qualname__", None) or getattr(type(callback), "__qualname__", None)
    module = getattr(callback, "__module__", None)
    if qualname:
        return f"{module}.{qualname}" if module and module != "builtins" else str(qualname)
    return repr(callback)


async def call_user_callback(callback: Callable[..., Any], arg: Any, *, kind: str, where: str) -> Any:
    """``callback(arg)`` off the loop; raises :class:`CallbackError` naming it if it raises.

    ``kind`` is the option it came from (``"step_callback"``); ``where`` says
    for what (``"task 'write' (agent 'Writer')"``).
    """
    try:
        if inspect.iscoroutinefunction(callback):
            return await callback(arg)
        result = await asyncio.to_thread(callback, arg)
        if inspect.isawaitable(result):
            result = await result
        return result
    except Exception as exc:
        name = callback_name(callback)
        raise CallbackError(
            f"{kind} {name!r} raised {type(exc).__name__}: {exc} (for {where}); fix the callback "
            "and resume the run from its checkpoint to continue where it stopped",
            callback=name,
            kind=kind,
        ) from exc
