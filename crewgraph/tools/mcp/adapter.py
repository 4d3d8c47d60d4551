"""``MCPServerAdapter``: CrewAI's context manager for using MCP servers' tools explicitly.

    with MCPServerAdapter(StdioServerParameters(command="python", args=["server.py"])) as tools:
        agent = Agent(..., tools=tools)            # or tools["get_forecast"], or tool_names=...

The sessions live on an event loop in a background thread for as long as the
adapter is open (the ``with`` block, or until ``stop()``), so its tools work
from plain Python, from any number of crew runs, and from other event loops.
Tools keep the server's names, as in CrewAI.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable
from typing import Any

from crewgraph.tools.mcp.config import ADAPTER_CONNECT_TIMEOUT, MCPServerConfig, to_server_config
from crewgraph.tools.mcp.connection import MCPConnection, MCPServerError
from crewgraph.tools.mcp.tool import MCPTool

__all__ = ["MCPServerAdapter", "ToolCollection"]


class ToolCollection(list[MCPTool]):
    """A list of tools that can also be indexed by tool name (``tools["search"]``)."""

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            for tool in self:
                if tool.name == key or tool.remote_name == key:
                    return tool
            raise KeyError(f"no MCP tool named {key!r}; the tools are {[t.name for t in self]}")
        return super().__getitem__(key)

    def filter_by_names(self, names: Iterable[str] | None) -> ToolCollection:
        if not names:
            return ToolCollection(self)
        return ToolCollection(self[name] for name in names)


class MCPServerAdapter:
    """Connect to one server (or a list of them), list their tools, keep the sessions open.

    ``serverparams``: ``mcp.StdioServerParameters``, a dict (``{"command": ...}`` or
    ``{"url": ..., "transport": "streamable-http" | "sse", "headers": {...}}``), a URL string,
    an ``MCPServerStdio/HTTP/SSE``, or a list of these. ``*tool_names`` keeps only those tools.
    ``connect_timeout`` (default 30 s, CrewAI's adapter value) bounds the start of every server.
    """

    def __init__(
        self,
        serverparams: Any,
        *tool_names: str,
        connect_timeout: float = ADAPTER_CONNECT_TIMEOUT,
    ):
        entries = serverparams if isinstance(serverparams, list | tuple) else [serverparams]
        self._configs: list[MCPServerConfig] = [
            _with_timeout(to_server_config(e), connect_timeout) for e in entries
        ]
        self._tool_names = list(tool_names)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._connections: list[MCPConnection] = []
        self._tools: ToolCollection | None = None
        self.start()

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Open the sessions and list the tools (done by the constructor)."""
        if self._tools is not None:
            return
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, name="crewgraph-mcp-adapter", daemon=True)
        thread.start()
        self._loop, self._thread = loop, thread
        budget = sum(c.connect_timeout + c.call_timeout for c in self._configs) + 10.0
        try:
            tools = asyncio.run_coroutine_threadsafe(self._open(), loop).result(timeout=budget)
        except BaseException:
            self.stop()
            raise
        self._tools = tools.filter_by_names(self._tool_names)

    async def _open(self) -> ToolCollection:
        from crewgraph.tools.mcp.discovery import tools_from_listing

        collected = ToolCollection()
        for config in self._configs:
            conn = MCPConnection(config)
            await conn.start()
            self._connections.append(conn)
            listing = [
                {"name": t.name, "description": t.description or "", "inputSchema": dict(t.input_schema or {})}
                for t in await conn.list_tools()
            ]
            collected.extend(t.bind(conn) for t in tools_from_listing(config, listing, namespaced=False))
        return collected

    def stop(self) -> None:
        """Close every session and stop the servers (idempotent)."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        self._loop = self._thread = None
        if loop.is_running():
            connections, self._connections = self._connections, []

            async def close_all() -> None:
                await asyncio.gather(*(c.aclose() for c in connections), return_exceptions=True)

            try:
                asyncio.run_coroutine_threadsafe(close_all(), loop).result(timeout=15.0)
            except Exception:
                pass
            loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5.0)
        if not thread.is_alive():
            loop.close()

    @property
    def tools(self) -> ToolCollection:
        if self._tools is None:
            raise MCPServerError("this MCPServerAdapter is stopped: its tools can no longer be used")
        return self._tools

    def __enter__(self) -> ToolCollection:
        return self.tools

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self._tools = None


def _with_timeout(config: MCPServerConfig, connect_timeout: float) -> MCPServerConfig:
    if connect_timeout == config.connect_timeout:
        return config
    return config.model_copy(update={"connect_timeout": connect_timeout})
