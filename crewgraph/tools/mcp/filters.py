"""Which of a server's tools an agent gets: CrewAI's static and dynamic tool filters.

A filter sees each tool as a dict (``name``, ``description``, ``inputSchema``)
and returns True to keep it. A static filter is an allow/block list; a dynamic
one also receives a :class:`ToolFilterContext` (the agent and the server name).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "StaticToolFilter",
    "ToolFilter",
    "ToolFilterContext",
    "apply_tool_filter",
    "create_dynamic_tool_filter",
    "create_static_tool_filter",
]


class ToolFilterContext(BaseModel):
    """What a dynamic filter knows besides the tool: the agent asking and the server."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    agent: Any = Field(default=None, description="The agent the tools are for (None outside an agent)")
    server_name: str = Field(description="Name of the MCP server")
    run_context: dict[str, Any] | None = None


ToolFilter = Callable[[ToolFilterContext, dict[str, Any]], bool] | Callable[[dict[str, Any]], bool]


class StaticToolFilter:
    """Allow and block lists of tool names; a blocked name wins over an allowed one."""

    def __init__(self, allowed_tool_names: list[str] | None = None, blocked_tool_names: list[str] | None = None):
        self.allowed_tool_names = set(allowed_tool_names) if allowed_tool_names is not None else None
        self.blocked_tool_names = set(blocked_tool_names or [])

    def __call__(self, tool: dict[str, Any]) -> bool:
        name = tool.get("name", "")
        if name in self.blocked_tool_names:
            return False
        return self.allowed_tool_names is None or name in self.allowed_tool_names

    def __repr__(self) -> str:
        return f"StaticToolFilter(allowed={self.allowed_tool_names}, blocked={self.blocked_tool_names})"


def create_static_tool_filter(
    allowed_tool_names: list[str] | None = None, blocked_tool_names: list[str] | None = None
) -> StaticToolFilter:
    """A filter keeping ``allowed_tool_names`` (all when None) minus ``blocked_tool_names``."""
    return StaticToolFilter(allowed_tool_names=allowed_tool_names, blocked_tool_names=blocked_tool_names)


def create_dynamic_tool_filter(
    filter_func: Callable[[ToolFilterContext, dict[str, Any]], bool],
) -> Callable[[ToolFilterContext, dict[str, Any]], bool]:
    """Mark ``filter_func(context, tool) -> bool`` as a filter (it is returned as is)."""
    return filter_func


def _positional_arity(fn: Callable[..., Any]) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 1
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return 2
    return sum(1 for p in params if p.kind in kinds and p.default is inspect.Parameter.empty)


def apply_tool_filter(
    tool_filter: Any, tools: list[dict[str, Any]], context: ToolFilterContext
) -> list[dict[str, Any]]:
    """The tools ``tool_filter`` keeps. One-argument filters get the tool, two-argument ones
    ``(context, tool)``; the arity is read from the signature, so an error inside a filter
    is never mistaken for the other calling convention."""
    if tool_filter is None:
        return tools
    if not callable(tool_filter):
        raise TypeError(f"tool_filter must be callable, got {type(tool_filter).__name__}")
    two = _positional_arity(tool_filter) >= 2
    kept = []
    for tool in tools:
        keep = tool_filter(context, tool) if two else tool_filter(tool)
        if inspect.isawaitable(keep):
            raise TypeError("tool_filter must be a plain function returning bool, not async")
        if keep:
            kept.append(tool)
    return kept
