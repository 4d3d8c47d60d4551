"""Build the official ``mcp`` SDK client for a server config (the only module importing ``mcp``)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import IO, Any, TextIO, cast

from crewgraph.errors import ConfigurationError
from crewgraph.tools.mcp.config import MCPServerConfig, MCPServerSSE, MCPServerStdio

__all__ = ["import_mcp", "open_client"]


def import_mcp() -> Any:
    """The ``mcp`` package, or a clear error naming the extra that installs it."""
    try:
        import mcp
    except ImportError as exc:
        raise ConfigurationError(
            "MCP servers need the official MCP SDK: pip install 'crewgraph[mcp]'"
        ) from exc
    return mcp


def _http_factory(config: Any) -> Any:
    import httpx2

    def factory(headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None) -> Any:
        merged = {**(config.headers or {}), **(headers or {})}
        if timeout is None:
            timeout = httpx2.Timeout(config.connect_timeout, read=max(300.0, config.call_timeout))
        return httpx2.AsyncClient(headers=merged or None, timeout=timeout, auth=auth, verify=config.verify)

    return factory


def _transport(config: MCPServerConfig, errlog: IO[str] | None, marker: str | None = None) -> Any:
    if isinstance(config, MCPServerStdio):
        import sys

        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        from crewgraph._internal.reaper import MARKER_ENV

        # The SDK merges ``env`` into its default environment; the marker is inherited by every
        # process the server starts, so they can all be found and stopped when the session ends.
        env = {**(config.env or {}), **({MARKER_ENV: marker} if marker else {})} or None
        params = StdioServerParameters(command=config.command, args=config.args, env=env, cwd=config.cwd)
        return stdio_client(params, errlog=cast(TextIO, errlog or sys.stderr))
    if isinstance(config, MCPServerSSE):
        from mcp.client.sse import sse_client

        return sse_client(
            config.url,
            timeout=config.connect_timeout,
            sse_read_timeout=max(300.0, config.call_timeout),
            httpx_client_factory=_http_factory(config),
        )
    raise AssertionError("streamable HTTP is opened by open_client")  # pragma: no cover


@contextlib.asynccontextmanager
async def open_client(config: MCPServerConfig, errlog: IO[str] | None = None) -> AsyncIterator[Any]:
    """An entered ``mcp.Client`` for ``config`` (handshake done). Enter and exit it in one task:
    the SDK's transports hold anyio task groups bound to the task that opened them."""
    mcp = import_mcp()
    from crewgraph._internal.reaper import kill_marked, new_marker

    marker = new_marker() if isinstance(config, MCPServerStdio) else None
    try:
        async with contextlib.AsyncExitStack() as stack:
            yield await _entered(mcp, stack, config, errlog, marker)
    finally:
        # The SDK stops the server it started, not what the server started: a child it spawned
        # (or a daemon that left its session) would outlive the run. Stop them all.
        if marker is not None:
            kill_marked(marker)


async def _entered(mcp: Any, stack: contextlib.AsyncExitStack, config: MCPServerConfig,
                   errlog: IO[str] | None, marker: str | None) -> Any:
    """The ``mcp.Client`` for ``config``, entered on ``stack`` (handshake done)."""
    if isinstance(config, MCPServerStdio | MCPServerSSE):
        transport = _transport(config, errlog, marker)
    else:
        from mcp.client.streamable_http import streamable_http_client

        http = await stack.enter_async_context(_http_factory(config)())
        transport = streamable_http_client(config.url, http_client=http)
    return await stack.enter_async_context(mcp.Client(transport, read_timeout_seconds=config.call_timeout))
