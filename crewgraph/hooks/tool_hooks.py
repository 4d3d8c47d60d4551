"""Tool call hooks: registration (CrewAI's function names) and the two calls a tool node makes.

``before_tool_call`` hooks run after the model's arguments are parsed and before
they are validated against the tool's schema, so a hook's change is checked
like the model's own. A blocked call does not run the tool: the agent reads
"Tool execution blocked by hook" (with the reason) and the run continues, as in
CrewAI; after-hooks still see it. ``after_tool_call`` hooks may replace the text
the agent reads (a cached result included).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from crewgraph.hooks import _registry
from crewgraph.hooks._run import Blocked, run_chain
from crewgraph.hooks.types import ToolCallHookContext

__all__ = [
    "ToolCallHookContext",
    "blocked_message",
    "clear_after_tool_call_hooks",
    "clear_all_tool_call_hooks",
    "clear_before_tool_call_hooks",
    "get_after_tool_call_hooks",
    "get_before_tool_call_hooks",
    "register_after_tool_call_hook",
    "register_before_tool_call_hook",
    "run_after_tool_call_hooks",
    "run_before_tool_call_hooks",
    "unregister_after_tool_call_hook",
    "unregister_before_tool_call_hook",
]

ToolHook = Callable[[ToolCallHookContext], Any]


def register_before_tool_call_hook(hook: ToolHook) -> None:
    """Run ``hook(context)`` before every tool call; ``False`` blocks the call."""
    _registry.add("before_tool_call", hook)


def register_after_tool_call_hook(hook: ToolHook) -> None:
    """Run ``hook(context)`` after every tool call; a returned string replaces the result."""
    _registry.add("after_tool_call", hook)


def get_before_tool_call_hooks() -> list[ToolHook]:
    return _registry.listed("before_tool_call")


def get_after_tool_call_hooks() -> list[ToolHook]:
    return _registry.listed("after_tool_call")


def unregister_before_tool_call_hook(hook: ToolHook) -> bool:
    return _registry.remove("before_tool_call", hook)


def unregister_after_tool_call_hook(hook: ToolHook) -> bool:
    return _registry.remove("after_tool_call", hook)


def clear_before_tool_call_hooks() -> int:
    return _registry.clear("before_tool_call")


def clear_after_tool_call_hooks() -> int:
    return _registry.clear("after_tool_call")


def clear_all_tool_call_hooks() -> tuple[int, int]:
    """Remove every global tool hook: (before count, after count)."""
    return clear_before_tool_call_hooks(), clear_after_tool_call_hooks()


def blocked_message(tool_name: str, reason: str) -> str:
    why = f" Reason: {reason}" if reason else ""
    return f"Tool execution blocked by hook. Tool: {tool_name}.{why}"


async def run_before_tool_call_hooks(context: ToolCallHookContext, extras: dict[str, Any] | None) -> str | None:
    """Run the before-hooks: None to go ahead, else the message the agent reads instead."""
    hooks = _registry.hooks_for("before_tool_call", extras)
    if not hooks:
        return None
    try:
        await run_chain("before_tool_call", hooks, context, before=True)
    except Blocked as blocked:
        context.blocked = True
        return blocked_message(context.tool_name, blocked.reason)
    return None


async def run_after_tool_call_hooks(context: ToolCallHookContext, extras: dict[str, Any] | None) -> str | None:
    """Run the after-hooks; the replacement result text, or None to keep it."""
    hooks = _registry.hooks_for("after_tool_call", extras)
    if not hooks:
        return None
    return await run_chain("after_tool_call", hooks, context, before=False)
