"""Tool discovery: which tools an agent's MCP servers offer, when the crew compiles.

Listing a server means starting it (stdio) or connecting to it, so listings
are cached per server for five minutes as CrewAI does (for the whole process
with ``cache_tools_list=True``). A server that cannot be listed is an error
at compile time naming the agent and the server — CrewAI logs a warning and
drops the tools, which leaves the agent silently without them.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from crewgraph.tools._names import sanitize_tool_name
from crewgraph.tools.mcp.config import MCPServerConfig
from crewgraph.tools.mcp.filters import ToolFilterContext, apply_tool_filter
from crewgraph.tools.mcp.tool import MCPTool

__all__ = ["agent_mcp_tools", "clear_tool_cache", "list_server_tools", "mcp_tools", "tools_from_listing"]

_TTL = 300.0
_CACHE: dict[str, tuple[float, list[dict[str, Any]]]] = {}
_LOCK = threading.Lock()


def clear_tool_cache() -> None:
    """Forget every cached tool listing (the next compile lists the servers again)."""
    with _LOCK:
        _CACHE.clear()


async def _list(config: MCPServerConfig) -> list[dict[str, Any]]:
    from crewgraph.tools.mcp.connection import open_connection

    async with open_connection(config) as conn:
        tools = await conn.list_tools()
    return [_as_dict(t) for t in tools]


def _as_dict(tool: Any) -> dict[str, Any]:
    return {
        "name": tool.name,
        "description": tool.description or "",
        "inputSchema": dict(tool.input_schema or {"type": "object", "properties": {}}),
    }


def list_server_tools(config: MCPServerConfig) -> list[dict[str, Any]]:
    """The server's tools as dicts (``name``, ``description``, ``inputSchema``), cached."""
    key = config.fingerprint()
    now = time.monotonic()
    with _LOCK:
        hit = _CACHE.get(key)
    if hit is not None and (config.cache_tools_list or now - hit[0] < _TTL):
        return hit[1]
    from crewgraph._internal.sync import run_sync

    listing = run_sync(_list(config))
    with _LOCK:
        _CACHE[key] = (time.monotonic(), listing)
    return listing


def tools_from_listing(
    config: MCPServerConfig, listing: list[dict[str, Any]], *, agent: Any = None, namespaced: bool = True
) -> list[MCPTool]:
    """MCPTools for the listed tools the config keeps (its ``#tool`` and ``tool_filter``)."""
    server = config.server_name()
    if config.only_tool is not None:
        listing = [t for t in listing if sanitize_tool_name(t["name"]) == config.only_tool]
        if not listing:
            from crewgraph.tools.mcp.connection import MCPServerError

            raise MCPServerError(f"MCP server {config.describe()} has no tool {config.only_tool!r}")
    listing = apply_tool_filter(config.tool_filter, listing, ToolFilterContext(agent=agent, server_name=server))
    return [
        MCPTool(
            name=sanitize_tool_name(f"{server}_{t['name']}" if namespaced else t["name"]),
            description=t["description"] or f"{t['name']} (a tool of the MCP server {server!r})",
            server=config,
            remote_name=t["name"],
            parameters=t["inputSchema"],
        )
        for t in listing
    ]


def mcp_tools(configs: list[MCPServerConfig], *, agent: Any = None) -> list[MCPTool]:
    """Every tool an agent's ``mcps`` give it, named ``<server>_<tool>``."""
    tools: list[MCPTool] = []
    for config in configs:
        tools.extend(tools_from_listing(config, list_server_tools(config), agent=agent))
    return tools


def agent_mcp_tools(agent: Any) -> list[MCPTool]:
    """The tools of ``agent.mcps`` (none when it has no MCP servers; nothing is imported then)."""
    configs = getattr(agent, "mcps", None) or []
    return mcp_tools(list(configs), agent=agent) if configs else []
