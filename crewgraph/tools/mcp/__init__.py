"""MCP servers as tools, on the official ``mcp`` SDK (the ``crewgraph[mcp]`` extra).

``Agent(mcps=[...])`` takes URL strings and the configs below; their tools are
listed when the crew compiles (``tool`` nodes named ``<server>_<tool>``) and
called over one session per server per run. :class:`MCPServerAdapter` is
CrewAI's context manager for explicit use. Importing this package does not
import ``mcp``; connecting does.
"""

from crewgraph.tools.mcp.adapter import MCPServerAdapter, ToolCollection
from crewgraph.tools.mcp.config import (
    MCPServerConfig,
    MCPServerHTTP,
    MCPServerSSE,
    MCPServerStdio,
    to_server_config,
    to_server_configs,
)
from crewgraph.tools.mcp.connection import MCPCallTimeoutError, MCPConnection, MCPServerError
from crewgraph.tools.mcp.discovery import clear_tool_cache, mcp_tools
from crewgraph.tools.mcp.filters import (
    StaticToolFilter,
    ToolFilter,
    ToolFilterContext,
    create_dynamic_tool_filter,
    create_static_tool_filter,
)
from crewgraph.tools.mcp.sessions import MCPSessionPool, run_sessions
from crewgraph.tools.mcp.tool import MCPTool

__all__ = [
    "MCPCallTimeoutError",
    "MCPConnection",
    "MCPServerAdapter",
    "MCPServerConfig",
    "MCPServerError",
    "MCPServerHTTP",
    "MCPServerSSE",
    "MCPServerStdio",
    "MCPSessionPool",
    "MCPTool",
    "StaticToolFilter",
    "ToolCollection",
    "ToolFilter",
    "ToolFilterContext",
    "clear_tool_cache",
    "create_dynamic_tool_filter",
    "create_static_tool_filter",
    "mcp_tools",
    "run_sessions",
    "to_server_config",
    "to_server_configs",
]
