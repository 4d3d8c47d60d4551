"""``MCPTool``: one tool of an MCP server as a crewgraph ``BaseTool``.

The model sees the server's own JSON Schema; calls are validated against it,
then sent over the run's session to the server (see ``sessions.py``). What
comes back is read as CrewAI does: the text content for the model, and a
result flagged ``isError`` — or a server that is gone or too slow — is a
:class:`ToolFailure` (reason ``remote_error``) naming the server.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import Field, PrivateAttr

from crewgraph.tools._schema import json_schema_model
from crewgraph.tools.base_tool import BaseTool, _ArgsSchemaPlaceholder
from crewgraph.tools.mcp.connection import MCPCallTimeoutError, MCPConnection, MCPServerError
from crewgraph.tools.tool_failure import ToolFailure, ToolFailureReason

__all__ = ["MCPTool", "result_value"]


def _block_text(block: Any) -> str | None:
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(block.text)
    if kind == "resource":
        resource = block.resource
        text = getattr(resource, "text", None)
        return str(text) if text is not None else f"[resource {resource.uri} ({resource.mime_type or 'binary'})]"
    if kind == "resource_link":
        return f"[resource {block.uri}]"
    if kind in ("image", "audio"):
        return f"[{kind} ({block.mime_type}), not shown]"
    return None


def result_value(result: Any) -> tuple[Any, str]:
    """(value for the tool's caller, text of the content) of an SDK ``CallToolResult``.

    The text blocks joined by newlines when there are any; else the structured
    content (a dict/list, which the model reads as JSON); else "".
    """
    texts = [t for t in (_block_text(b) for b in result.content or []) if t is not None]
    text = "\n".join(texts)
    if texts:
        return text, text
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        return structured, ""
    return "", ""


class MCPTool(BaseTool):
    """A tool listed by an MCP server. ``name`` is ``<server>_<tool>`` for agents' ``mcps``
    (namespaced by server) and the server's own name for ``MCPServerAdapter`` tools."""

    server: Any = Field(description="The server's MCPServerStdio/MCPServerHTTP/MCPServerSSE config")
    remote_name: str = Field(description="The tool's name on the server")
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    _bound: MCPConnection | None = PrivateAttr(default=None)

    def model_post_init(self, __context: Any) -> None:
        if self.args_schema is _ArgsSchemaPlaceholder:
            self.args_schema = json_schema_model(self.parameters, self.name)
        super().model_post_init(__context)

    def bind(self, connection: MCPConnection | None) -> MCPTool:
        """Use ``connection`` for every call (``MCPServerAdapter``'s session)."""
        self._bound = connection
        return self

    def _spec_parameters(self) -> dict[str, Any]:
        params = {k: v for k, v in self.parameters.items() if k not in ("title", "$schema")}
        params.setdefault("type", "object")
        params.setdefault("properties", {})
        return params

    def validate_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Validated, and only the arguments the model gave: the server applies its own
        defaults (sending ``null`` for an omitted optional argument could fail its schema)."""
        validated = self.args_schema.model_validate(arguments)
        return validated.model_dump(exclude_unset=True)

    async def _run(self, **kwargs: Any) -> Any:
        from crewgraph.events.mcp_events import (
            MCPToolExecutionCompletedEvent,
            MCPToolExecutionFailedEvent,
            MCPToolExecutionStartedEvent,
        )
        from crewgraph.tools.mcp._events import emit_mcp

        started = datetime.now(UTC)
        call = {"tool_name": self.remote_name, "tool_args": dict(kwargs)}
        emit_mcp(MCPToolExecutionStartedEvent, self.server, **call)
        result = await self._call(kwargs)
        if isinstance(result, ToolFailure):
            kind = "timeout" if result.code == "mcp_timeout" else "tool_error" if result.code == "mcp_tool_error" else "server_error"
            emit_mcp(MCPToolExecutionFailedEvent, self.server, **call, error=result.message, error_type=kind,
                     started_at=started, failed_at=datetime.now(UTC))
        else:
            done = datetime.now(UTC)
            emit_mcp(MCPToolExecutionCompletedEvent, self.server, **call, result=result, started_at=started,
                     completed_at=done, execution_duration_ms=(done - started).total_seconds() * 1000)
        return result

    async def _call(self, kwargs: dict[str, Any]) -> Any:
        from crewgraph.tools.mcp.sessions import current_pool

        server = self.server
        try:
            if self._bound is not None:
                result = await self._bound.call_tool(self.remote_name, kwargs)
            elif (pool := current_pool()) is not None:
                conn = await pool.connection(server)
                result = await conn.call_tool(self.remote_name, kwargs)
            else:
                from crewgraph.tools.mcp.connection import open_connection

                async with open_connection(server) as conn:
                    result = await conn.call_tool(self.remote_name, kwargs)
        except MCPServerError as exc:
            code = "mcp_timeout" if isinstance(exc, MCPCallTimeoutError) else "mcp_server_error"
            return ToolFailure(
                message=str(exc),
                code=code,
                reason=ToolFailureReason.MCP_ERROR,
                details={"server": server.server_name(), "tool": self.remote_name},
            )
        value, text = result_value(result)
        if getattr(result, "is_error", False):
            return ToolFailure(
                message=f"MCP tool {self.remote_name!r} of server {server.server_name()!r} reported an "
                f"error: {text or '(no message)'}",
                code="mcp_tool_error",
                reason=ToolFailureReason.MCP_ERROR,
                details={"server": server.server_name(), "tool": self.remote_name},
            )
        return value
