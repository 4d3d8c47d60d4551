"""CrewAI's ``crewai.mcp.filters`` import path (the code lives in crewgraph.tools.mcp.filters)."""

from crewgraph.tools.mcp.filters import (
    StaticToolFilter,
    ToolFilter,
    ToolFilterContext,
    create_dynamic_tool_filter,
    create_static_tool_filter,
)

__all__ = [
    "StaticToolFilter",
    "ToolFilter",
    "ToolFilterContext",
    "create_dynamic_tool_filter",
    "create_static_tool_filter",
]
