"""Events of MCP servers (CrewAI's names and fields): connections and tool executions.

``MCPConnectionStartedEvent`` / ``MCPConnectionCompletedEvent`` / ``MCPConnectionFailedEvent``
when a session to a server opens (once per server per run, and for tool listing at compile
time); ``MCPToolExecutionStartedEvent`` / ``...CompletedEvent`` / ``...FailedEvent`` around
each call (a result flagged ``isError`` is a failed execution).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from crewgraph.events.base import BaseEvent

__all__ = [
    "MCPConfigFetchFailedEvent",
    "MCPConnectionCompletedEvent",
    "MCPConnectionFailedEvent",
    "MCPConnectionStartedEvent",
    "MCPEvent",
    "MCPToolExecutionCompletedEvent",
    "MCPToolExecutionFailedEvent",
    "MCPToolExecutionStartedEvent",
]


class MCPEvent(BaseEvent):
    """The base of the MCP events (emitted with ``source_type="mcp"``)."""

    type: str = "mcp"
    family_source_type: ClassVar[str | None] = "mcp"
    server_name: str
    server_url: str | None = None
    transport_type: str | None = None
    from_task: Any = None
    from_agent: Any = None


_MCPEvent = MCPEvent


class MCPConnectionStartedEvent(_MCPEvent):
    type: str = "mcp_connection_started"
    connect_timeout: float | None = None
    is_reconnect: bool = False


class MCPConnectionCompletedEvent(_MCPEvent):
    type: str = "mcp_connection_completed"
    started_at: datetime | None = None
    completed_at: datetime | None = None
    connection_duration_ms: float | None = None
    is_reconnect: bool = False


class MCPConnectionFailedEvent(_MCPEvent):
    type: str = "mcp_connection_failed"
    error: str
    error_type: str | None = None
    started_at: datetime | None = None
    failed_at: datetime | None = None
    status_code: int | None = None


class MCPToolExecutionStartedEvent(_MCPEvent):
    type: str = "mcp_tool_execution_started"
    tool_name: str
    tool_args: dict[str, Any] | None = None


class MCPToolExecutionCompletedEvent(_MCPEvent):
    type: str = "mcp_tool_execution_completed"
    tool_name: str
    tool_args: dict[str, Any] | None = None
    result: Any = None
    started_at: datetime | None = None
    completed_at: datetime | None = None
    execution_duration_ms: float | None = None


class MCPToolExecutionFailedEvent(_MCPEvent):
    type: str = "mcp_tool_execution_failed"
    tool_name: str
    tool_args: dict[str, Any] | None = None
    error: str
    error_type: str | None = None
    started_at: datetime | None = None
    failed_at: datetime | None = None


class MCPConfigFetchFailedEvent(BaseEvent):
    """An MCP server's configuration could not be fetched (``slug``: the server reference)."""

    type: str = "mcp_config_fetch_failed"
    slug: str
    error: str
    error_type: str | None = None
