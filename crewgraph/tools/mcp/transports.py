"""CrewAI's MCP transports (``crewai.mcp.transports``): how an :class:`MCPClient` reaches a server.

A transport is a server address plus the way to talk to it -- a command to start (stdio), a
streamable-HTTP URL, an SSE URL -- that becomes crewgraph's server config
(:meth:`BaseTransport.to_config`). Connecting opens crewgraph's robust session
(:class:`~crewgraph.tools.mcp.connection.MCPConnection`: its own task, bounded calls, a dead
server is an error naming it). ``read_stream``/``write_stream`` are the SDK session's streams
while connected.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from typing import Any, Self

from crewgraph.tools.mcp.config import MCPServerConfig, MCPServerHTTP, MCPServerSSE, MCPServerStdio

__all__ = ["BaseTransport", "HTTPTransport", "SSETransport", "StdioTransport", "TransportType"]


class TransportType(str, enum.Enum):
    """How a client talks to an MCP server."""

    STDIO = "stdio"
    HTTP = "http"
    STREAMABLE_HTTP = "streamable-http"
    SSE = "sse"


class BaseTransport(ABC):
    """The base of the transports; a subclass says how to reach its server (:meth:`to_config`)."""

    def __init__(self, **kwargs: Any) -> None:
        self.options = kwargs
        self._connection: Any = None
        self._timeouts: dict[str, float] = {}

    @property
    @abstractmethod
    def transport_type(self) -> TransportType:
        """The transport's kind."""

    @abstractmethod
    def to_config(self) -> MCPServerConfig:
        """crewgraph's server config of this transport."""

    @property
    def connected(self) -> bool:
        """Whether a session to the server is open."""
        return self._connection is not None and bool(self._connection.alive)

    @property
    def connection(self) -> Any:
        """The open :class:`MCPConnection` (a RuntimeError when not connected)."""
        if self._connection is None:
            raise RuntimeError("Transport not connected. Call connect() first.")
        return self._connection

    @property
    def read_stream(self) -> Any:
        """The session's receive stream (the SDK's)."""
        return self._stream("_read_stream")

    @property
    def write_stream(self) -> Any:
        """The session's send stream (the SDK's)."""
        return self._stream("_write_stream")

    def _stream(self, name: str) -> Any:
        session = getattr(self.connection._live_client(), "session", None)
        stream = getattr(session, name, None)
        if stream is None:
            raise RuntimeError(f"the MCP SDK's session does not expose its {name.strip('_')}")
        return stream

    async def connect(self) -> Self:
        """Open the session (start the server or connect to it, handshake included)."""
        if self.connected:
            return self
        from crewgraph.tools.mcp.connection import MCPConnection

        config = self.to_config()
        if self._timeouts:
            config = config.model_copy(update=self._timeouts)
        connection = MCPConnection(config)
        await connection.start()
        self._connection = connection
        return self

    async def disconnect(self) -> None:
        """Close the session (and stop a stdio server); never raises."""
        connection, self._connection = self._connection, None
        if connection is not None:
            await connection.aclose()

    async def __aenter__(self) -> Self:
        return await self.connect()

    async def __aexit__(self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: Any) -> None:
        await self.disconnect()


class StdioTransport(BaseTransport):
    """A server run as a subprocess speaking MCP on stdin/stdout."""

    def __init__(self, command: str, args: list[str] | None = None, env: dict[str, str] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.command, self.args, self.env = command, list(args or []), env

    @property
    def transport_type(self) -> TransportType:
        return TransportType.STDIO

    def to_config(self) -> MCPServerConfig:
        return MCPServerStdio(command=self.command, args=self.args, env=self.env, **self.options)


class HTTPTransport(BaseTransport):
    """A server at a streamable-HTTP URL."""

    def __init__(self, url: str, headers: dict[str, str] | None = None, streamable: bool = True,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.url, self.headers, self.streamable = url, headers, streamable

    @property
    def transport_type(self) -> TransportType:
        return TransportType.STREAMABLE_HTTP if self.streamable else TransportType.HTTP

    def to_config(self) -> MCPServerConfig:
        if not self.streamable:
            return MCPServerSSE(url=self.url, headers=self.headers, **self.options)
        return MCPServerHTTP(url=self.url, headers=self.headers, **self.options)


class SSETransport(BaseTransport):
    """A server at a Server-Sent Events URL."""

    def __init__(self, url: str, headers: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.url, self.headers = url, headers

    @property
    def transport_type(self) -> TransportType:
        return TransportType.SSE

    def to_config(self) -> MCPServerConfig:
        return MCPServerSSE(url=self.url, headers=self.headers, **self.options)
