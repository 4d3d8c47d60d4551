"""MCP sessions owned by a run: opened on first use, once per server, closed when the run ends.

``kickoff`` wraps the scheduler in :func:`run_sessions`; tool nodes (running in
tasks the scheduler created inside it) find the run's :class:`MCPSessionPool`
through a context variable. The pool closes every session when the run ends —
normally, on failure, or on cancellation. Outside a run (``tool.run(...)`` from
Python) an MCP tool opens a session for the one call.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextvars import ContextVar

from crewgraph.tools.mcp.config import MCPServerConfig
from crewgraph.tools.mcp.connection import MCPConnection

__all__ = ["MCPSessionPool", "current_pool", "run_sessions"]

_POOL: ContextVar[MCPSessionPool | None] = ContextVar("crewgraph_mcp_pool", default=None)


class MCPSessionPool:
    """The sessions of one run, by server fingerprint. A server that failed to start is
    not retried within the run: every call to it fails fast with the same reason."""

    def __init__(self) -> None:
        self._sessions: dict[str, MCPConnection] = {}
        self._failed: dict[str, BaseException] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self.opened = 0
        """How many sessions this run opened (a figure tests and benchmarks read)."""

    async def connection(self, config: MCPServerConfig) -> MCPConnection:
        key = config.fingerprint()
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            if key in self._failed:
                raise self._failed[key]
            conn = self._sessions.get(key)
            if conn is None:
                conn = MCPConnection(config)
                try:
                    await conn.start()
                except Exception as exc:
                    self._failed[key] = exc
                    raise
                self._sessions[key] = conn
                self.opened += 1
            return conn

    async def aclose(self) -> None:
        sessions, self._sessions = list(self._sessions.values()), {}
        if sessions:
            await asyncio.gather(*(s.aclose() for s in sessions), return_exceptions=True)


def current_pool() -> MCPSessionPool | None:
    """The pool of the run this code runs in, if any."""
    return _POOL.get()


@contextlib.asynccontextmanager
async def run_sessions() -> AsyncIterator[MCPSessionPool]:
    """Give the code inside (a run) one session per MCP server; close them all at the end."""
    pool = MCPSessionPool()
    token = _POOL.set(pool)
    try:
        yield pool
    finally:
        _POOL.reset(token)
        await pool.aclose()  # bounded: each session gets a grace period, then is cancelled
