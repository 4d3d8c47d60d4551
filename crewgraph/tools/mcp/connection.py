"""One live session to one MCP server, owned by a task of its own.

The SDK's transports hold anyio task groups that must be entered and left by
one task, and a server that crashes fails that task group. So each session
lives in an *owner task*: it opens the client, publishes it, waits to be told
to close, and closes it. Calls from any task (or, for ``MCPServerAdapter``, any
thread) go through :meth:`MCPConnection.call_tool`, each bounded by the
server's ``call_timeout``; a crash or a hang becomes :class:`MCPServerError`
naming the server, never a stuck run.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from datetime import UTC, datetime
from typing import Any

from crewgraph.errors import CrewGraphError
from crewgraph.tools.mcp.config import MCPServerConfig, MCPServerStdio

__all__ = ["MCPCallTimeoutError", "MCPConnection", "MCPServerError", "open_connection"]

_CONNECTION_CLOSED = -32000
_REQUEST_TIMEOUT = -32001
_CLOSE_GRACE = 6.0
"""Seconds a closing session gets to end its server politely (the SDK's stdin-close, SIGTERM,
SIGKILL ladder takes up to ~4s) before its owner task is cancelled."""


class MCPServerError(CrewGraphError):
    """An MCP server could not be reached, died, or broke the protocol."""


class MCPCallTimeoutError(MCPServerError):
    """A tool call got no answer within the server's ``call_timeout``."""


def _leaf_errors(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in _leaf_errors(sub)]
    return [exc]


def _why(exc: BaseException) -> str:
    leaves = [e for e in _leaf_errors(exc) if not isinstance(e, asyncio.CancelledError)] or [exc]
    return "; ".join(f"{type(e).__name__}: {e}" if str(e) else type(e).__name__ for e in leaves[:3])


class MCPConnection:
    """A session to ``config``'s server. ``await start()``, then ``call_tool``/``list_tools``
    from anywhere; ``await aclose()`` on the loop that started it."""

    def __init__(self, config: MCPServerConfig):
        self.config = config
        self._client: Any = None
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = asyncio.Event()
        self._closing = asyncio.Event()
        self._error: BaseException | None = None
        self._lost = False
        # A stdio server's stderr goes to a file, so an error can quote why it failed to start.
        self._stderr: Any = None
        if isinstance(config, MCPServerStdio):
            self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # noqa: SIM115 - closed in aclose

    @property
    def name(self) -> str:
        return self.config.server_name()

    @property
    def alive(self) -> bool:
        return self._client is not None and not self._lost

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> MCPConnection:
        """Start the server (or connect) and finish the handshake within ``connect_timeout``."""
        from crewgraph.events.mcp_events import (
            MCPConnectionCompletedEvent,
            MCPConnectionFailedEvent,
            MCPConnectionStartedEvent,
        )
        from crewgraph.tools.mcp._events import emit_mcp

        started = datetime.now(UTC)
        emit_mcp(MCPConnectionStartedEvent, self.config, connect_timeout=self.config.connect_timeout)
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.create_task(self._own(), name=f"mcp-session:{self.name}")
        try:
            await asyncio.wait_for(self._ready.wait(), self.config.connect_timeout)
        except TimeoutError:
            message = (
                f"MCP server {self.config.describe()} did not complete the handshake within "
                f"{self.config.connect_timeout:g}s (connect_timeout){self._stderr_tail()}"
            )
            await self.aclose()
            emit_mcp(MCPConnectionFailedEvent, self.config, error=message, error_type="timeout",
                     started_at=started, failed_at=datetime.now(UTC))
            raise MCPServerError(message) from None
        if self._client is None:
            await self._finished()  # the server has exited: let it finish writing its stderr
            why = _why(self._error) if self._error is not None else "it closed the connection"
            message = f"cannot connect to MCP server {self.config.describe()}: {why}{self._stderr_tail()}"
            await self.aclose()
            emit_mcp(MCPConnectionFailedEvent, self.config, error=message, error_type="connection",
                     started_at=started, failed_at=datetime.now(UTC))
            raise MCPServerError(message)
        done = datetime.now(UTC)
        emit_mcp(MCPConnectionCompletedEvent, self.config, started_at=started, completed_at=done,
                 connection_duration_ms=(done - started).total_seconds() * 1000)
        return self

    async def _finished(self) -> None:
        if self._task is not None and not self._task.done():
            await asyncio.wait({self._task}, timeout=_CLOSE_GRACE)

    async def _own(self) -> None:
        from crewgraph.tools.mcp._client import open_client

        try:
            async with open_client(self.config, self._stderr) as client:
                self._client = client
                self._ready.set()
                await self._closing.wait()
        except BaseException as exc:  # the owner task ends here, whatever happened
            self._error = exc
        finally:
            self._client = None
            self._lost = True
            self._ready.set()

    async def aclose(self) -> None:
        """Close the session and stop the server; bounded, never raises."""
        self._closing.set()
        task = self._task
        if task is not None and not task.done():
            if self._client is None:
                task.cancel()  # still connecting: there is no session to end politely
            # asyncio.wait, not wait_for: a timeout must not cancel the task a second time in
            # the middle of the SDK's shutdown of the server process.
            done, _ = await asyncio.wait({task}, timeout=_CLOSE_GRACE)
            if not done:
                task.cancel()
                await asyncio.wait({task}, timeout=_CLOSE_GRACE)
        if self._stderr is not None:
            with contextlib.suppress(OSError):
                self._stderr.close()
            self._stderr = None

    # ------------------------------------------------------------------ calls
    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """``tools/call`` on the server; returns the SDK's ``CallToolResult``."""
        return await self._on_own_loop(self._call_tool(name, arguments))

    async def list_tools(self) -> list[Any]:
        """Every tool the server lists (all pages), as SDK ``Tool`` objects."""
        return await self._on_own_loop(self._list_tools())

    async def request(self, what: str, call: Any) -> Any:
        """``await call(client)`` on the session's SDK client (prompts, resources...), bounded by
        ``call_timeout``; failures are :class:`MCPServerError` naming ``what``."""
        return await self._on_own_loop(self._request(what, call))

    async def _request(self, what: str, call: Any) -> Any:
        client = self._live_client()
        try:
            return await asyncio.wait_for(call(client), self.config.call_timeout + 1.0)
        except TimeoutError:
            raise self._timeout(what) from None
        except Exception as exc:
            raise self._translate(exc, what) from exc

    async def _on_own_loop(self, coro: Any) -> Any:
        loop = self._loop
        if loop is None or loop is asyncio.get_running_loop():
            return await coro
        if loop.is_closed() or not loop.is_running():
            coro.close()
            raise MCPServerError(f"MCP server {self.config.describe()}: its session is closed")
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))

    async def _call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        client = self._live_client()
        timeout = self.config.call_timeout
        try:
            return await asyncio.wait_for(
                client.call_tool(name, arguments, read_timeout_seconds=timeout), timeout + 1.0
            )
        except TimeoutError:
            raise self._timeout(name) from None
        except Exception as exc:
            raise self._translate(exc, f"tool {name!r}") from exc

    async def _list_tools(self) -> list[Any]:
        client = self._live_client()
        tools: list[Any] = []
        cursor: str | None = None
        try:
            async with asyncio.timeout(self.config.connect_timeout + self.config.call_timeout):
                for _ in range(100):  # a paginator that never ends cannot hang discovery
                    page = await client.list_tools(cursor=cursor)
                    tools.extend(page.tools)
                    cursor = page.next_cursor
                    if not cursor:
                        break
        except TimeoutError:
            raise self._timeout("tools/list") from None
        except Exception as exc:
            raise self._translate(exc, "tools/list") from exc
        return tools

    def _live_client(self) -> Any:
        if self._client is None or self._lost:
            raise MCPServerError(self._gone_message())
        return self._client

    def _timeout(self, what: str) -> MCPCallTimeoutError:
        return MCPCallTimeoutError(
            f"MCP server {self.config.describe()} did not answer {what} within "
            f"{self.config.call_timeout:g}s (call_timeout)"
        )

    def _translate(self, exc: Exception, what: str) -> MCPServerError:
        code = getattr(exc, "code", None)
        if code == _REQUEST_TIMEOUT:
            return self._timeout(what)
        if code == _CONNECTION_CLOSED or self._task is None or self._task.done():
            self._lost = True
            return MCPServerError(self._gone_message())
        return MCPServerError(f"MCP server {self.config.describe()} failed {what}: {_why(exc)}")

    def _gone_message(self) -> str:
        why = f": {_why(self._error)}" if self._error is not None else ""
        return (
            f"MCP server {self.config.describe()} is not running: the connection was lost{why}"
            f"{self._stderr_tail()}"
        )

    def _stderr_tail(self) -> str:
        """The last lines the server printed on stderr: usually why it failed to start or died."""
        if self._stderr is None:
            return ""
        try:
            self._stderr.flush()
            self._stderr.seek(0)
            lines = [ln.rstrip() for ln in self._stderr.read()[-4000:].splitlines() if ln.strip()]
        except (OSError, ValueError):
            return ""
        return "\nlast lines of its stderr:\n  " + "\n  ".join(lines[-5:]) if lines else ""


@contextlib.asynccontextmanager
async def open_connection(config: MCPServerConfig) -> Any:
    """A started connection, closed on exit (for one-off use: discovery, direct calls)."""
    conn = MCPConnection(config)
    await conn.start()
    try:
        yield conn
    finally:
        await conn.aclose()
