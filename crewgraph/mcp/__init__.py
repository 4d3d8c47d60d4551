"""CrewAI's ``crewai.mcp`` import path: MCP server configs and tool filters.

The code lives in :mod:`crewgraph.tools.mcp`.
"""

from crewgraph.tools.mcp import (
    MCPServerConfig,
    MCPServerHTTP,
    MCPServerSSE,
    MCPServerStdio,
    StaticToolFilter,
    ToolFilter,
    ToolFilterContext,
    create_dynamic_tool_filter,
    create_static_tool_filter,
)

__all__ = [
    "MCPServerConfig",
    "MCPServerHTTP",
    "MCPServerSSE",
    "MCPServerStdio",
    "StaticToolFilter",
    "ToolFilter",
    "ToolFilterContext",
    "create_dynamic_tool_filter",
    "create_static_tool_filter",
]
