"""Tool names as the model must spell them, and finding a tool by the name it used.

OpenAI-compatible servers only accept function names matching
``^[A-Za-z0-9_-]{1,64}$``, while CrewAI tool names are free text ("Name of my
tool"). The spec name is the sanitized form; lookups accept either.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crewgraph.tools.base_tool import BaseTool

__all__ = ["find_tool", "sanitize_tool_name"]

_INVALID = re.compile(r"[^A-Za-z0-9_-]+")


def sanitize_tool_name(name: str) -> str:
    """``"Name of my tool"`` -> ``"Name_of_my_tool"`` (at most 64 characters, never empty)."""
    cleaned = _INVALID.sub("_", name.strip()).strip("_")
    return (cleaned or "tool")[:64]


def find_tool(tools: Iterable[BaseTool], name: str) -> BaseTool | None:
    """The tool the model meant by ``name``: exact name, then spec name, then case-insensitive."""
    candidates = list(tools)
    for tool in candidates:
        if tool.name == name:
            return tool
    wanted = sanitize_tool_name(name)
    for tool in candidates:
        if sanitize_tool_name(tool.name) == wanted:
            return tool
    lowered = wanted.lower()
    for tool in candidates:
        if sanitize_tool_name(tool.name).lower() == lowered:
            return tool
    from crewgraph.tools._call_habits import strip_name_prefix

    bare = strip_name_prefix(name)  # "functions.list_files", as small models write it
    return find_tool(candidates, bare) if bare and bare != name.strip() else None
