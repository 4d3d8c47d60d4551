"""CrewAI's ``MCPClient``: a session to one MCP server, driven directly (``crewai.mcp``).

Agents get MCP tools from ``Agent(mcps=[...])`` without touching a client; ``MCPClient`` is for
code that talks to a server itself: ``async with MCPClient(StdioTransport(...)) as client``,
then ``list_tools()``, ``call_tool(name, arguments)``, ``list_prompts()``, ``get_prompt(...)``.
The session is crewgraph's (:class:`~crewgraph.tools.mcp.connection.MCPConnection`), with the
client's timeouts; a lost connection is retried ``max_retries`` times (a timeout is not), and
a call on a client not yet connected connects first, as CrewAI's does.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, NamedTuple, Self

from crewgraph.tools._names import sanitize_tool_name
from crewgraph.tools.mcp.transports import BaseTransport

__all__ = ["MCPClient", "MCPToolResult"]

_TTL = 300.0
_LISTINGS: dict[str, tuple[float, list[dict[str, Any]]]] = {}


class MCPToolResult(NamedTuple):
    """A tool call's text and whether the server flagged it ``isError``."""

    content: str
    is_error: bool


class MCPClient:
    """A client of the server ``transport`` reaches (see the module docstring)."""

    def __init__(self, transport: BaseTransport, connect_timeout: int = 30, execution_timeout: int = 30,
                 discovery_timeout: int = 30, max_retries: int = 3, cache_tools_list: bool = False,
                 logger: logging.Logger | None = None) -> None:
        if not isinstance(transport, BaseTransport):
            raise TypeError(f"MCPClient needs a transport (StdioTransport, HTTPTransport, SSETransport), "
                            f"got {type(transport).__name__}")
        if max_retries < 1:
            raise ValueError(f"max_retries must be at least 1, got {max_retries}")
        self.transport = transport
        self.connect_timeout, self.execution_timeout = connect_timeout, execution_timeout
        self.discovery_timeout, self.max_retries = discovery_timeout, max_retries
        self.cache_tools_list = cache_tools_list
        self.logger = logger or logging.getLogger(__name__)

    @property
    def connected(self) -> bool:
        """Whether the session is open."""
        return self.transport.connected

    @property
    def session(self) -> Any:
        """The SDK's client session (a RuntimeError when not connected)."""
        if not self.connected:
            raise RuntimeError("Client not connected. Call connect() first.")
        return self.transport.connection._live_client()

    async def connect(self) -> Self:
        """Open the session (within ``connect_timeout``)."""
        if not self.connected:
            self.transport._timeouts = {"connect_timeout": float(self.connect_timeout),
                                        "call_timeout": float(max(self.execution_timeout, self.discovery_timeout))}
            from crewgraph.tools.mcp.connection import MCPServerError

            try:
                await self.transport.connect()
            except MCPServerError as exc:
                raise ConnectionError(f"Failed to connect to MCP server: {exc}") from exc
        return self

    async def disconnect(self) -> None:
        """Close the session."""
        await self.transport.disconnect()

    async def __aenter__(self) -> Self:
        return await self.connect()

    async def __aexit__(self, *exc: object) -> None:
        await self.disconnect()

    async def list_tools(self, use_cache: bool | None = None) -> list[dict[str, Any]]:
        """The server's tools: ``name`` (sanitized), ``original_name``, ``description``, ``inputSchema``.
        Cached for five minutes when ``use_cache`` (default: ``cache_tools_list``)."""
        await self.connect()
        cached = self.cache_tools_list if use_cache is None else use_cache
        key = self.transport.connection.config.fingerprint()
        hit = _LISTINGS.get(key)
        if cached and hit is not None and time.monotonic() - hit[0] < _TTL:
            return hit[1]
        tools = await self._retry(lambda conn: conn.list_tools(), self.discovery_timeout, "tools/list")
        listing = [{"name": sanitize_tool_name(t.name), "original_name": t.name, "description": t.description or "",
                    "inputSchema": dict(t.input_schema or {})} for t in tools]
        if cached:
            _LISTINGS[key] = (time.monotonic(), listing)
        return listing

    async def call_tool(self, tool_name: str, arguments: dict[str, Any] | None = None) -> Any:
        """Call ``tool_name``; its text (a result flagged ``isError`` is returned as its text too)."""
        return (await self.call_tool_result(tool_name, arguments)).content

    async def call_tool_result(self, tool_name: str, arguments: dict[str, Any] | None = None) -> MCPToolResult:
        """Call ``tool_name``; its text and the server's ``isError`` flag."""
        from crewgraph.tools.mcp.tool import result_value

        await self.connect()
        clean = {k: v for k, v in (arguments or {}).items() if v is not None}
        result = await self._retry(lambda conn: conn.call_tool(tool_name, clean), self.execution_timeout,
                                   f"tool {tool_name!r}")
        value, text = result_value(result)
        if not text and value not in ("", None):
            import json

            text = json.dumps(value, default=str)
        return MCPToolResult(content=text, is_error=bool(getattr(result, "is_error", False)))

    async def list_prompts(self) -> list[dict[str, Any]]:
        """The server's prompts: ``name``, ``description``, ``arguments`` (name, description, required)."""
        await self.connect()
        result = await self._retry(lambda conn: conn.request("prompts/list", lambda c: c.list_prompts()),
                                   self.discovery_timeout, "prompts/list")
        return [{"name": p.name, "description": p.description or "",
                 "arguments": [{"name": a.name, "description": a.description or "", "required": bool(a.required)}
                               for a in (p.arguments or [])]} for p in result.prompts]

    async def get_prompt(self, prompt_name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """The prompt ``prompt_name`` rendered with ``arguments``: ``name``, ``messages`` (role, content), ``arguments``."""
        await self.connect()
        args = {k: str(v) for k, v in (arguments or {}).items()}
        result = await self._retry(lambda conn: conn.request(f"prompt {prompt_name!r}",
                                                             lambda c: c.get_prompt(prompt_name, args)),
                                   self.execution_timeout, f"prompt {prompt_name!r}")
        messages = [{"role": m.role, "content": getattr(m.content, "text", None) or str(m.content)}
                    for m in result.messages]
        return {"name": prompt_name, "messages": messages, "arguments": dict(arguments or {})}

    async def _retry(self, operation: Any, timeout: float, what: str) -> Any:
        """``operation(connection)`` within ``timeout``; a lost connection reconnects and retries."""
        from crewgraph.tools.mcp.connection import MCPCallTimeoutError, MCPServerError

        last: Exception | None = None
        for attempt in range(self.max_retries):
            try:
                return await asyncio.wait_for(operation(self.transport.connection), timeout)
            except (TimeoutError, MCPCallTimeoutError) as exc:
                raise TimeoutError(f"MCP {what} timed out after {timeout} seconds") from exc
            except MCPServerError as exc:
                if self.transport.connected:  # the server answered with an error: not retried
                    raise
                last = exc
                self.logger.warning("MCP %s failed (attempt %d of %d): %s", what, attempt + 1, self.max_retries, exc)
                await self.transport.disconnect()
                if attempt + 1 < self.max_retries:
                    await asyncio.sleep(min(2 ** attempt, 4))
                    await self.connect()
        raise ConnectionError(f"MCP {what} failed after {self.max_retries} attempts: {last}") from last
