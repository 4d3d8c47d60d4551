"""CrewAI's ``crewai.mcp`` import path: MCP server configs, tool filters, ``MCPClient`` with its
transports, and ``MCPToolResolver``.

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
from crewgraph.tools.mcp.client import MCPClient
from crewgraph.tools.mcp.resolver import MCPToolResolver
from crewgraph.tools.mcp.transports import BaseTransport, TransportType

__all__ = [
    "BaseTransport",
    "MCPClient",
    "MCPServerConfig",
    "MCPServerHTTP",
    "MCPServerSSE",
    "MCPServerStdio",
    "MCPToolResolver",
    "StaticToolFilter",
    "ToolFilter",
    "ToolFilterContext",
    "TransportType",
    "create_dynamic_tool_filter",
    "create_static_tool_filter",
]
