"""MCP server configurations, as ``Agent(mcps=[...])`` and ``MCPServerAdapter`` accept them.

CrewAI's three structured configs (:class:`MCPServerStdio`,
:class:`MCPServerHTTP`, :class:`MCPServerSSE`) plus the shorthands CrewAI
takes: a URL string (``"https://host/mcp"``, ``"...#tool_name"`` for one tool),
``mcp.StdioServerParameters`` and the ``MCPServerAdapter`` dicts
(``{"command": ...}``, ``{"url": ..., "transport": "sse"}``). Everything is
normalised by :func:`to_server_config`. Nothing here imports the ``mcp`` SDK.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import PurePath
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_serializer

from crewgraph.tools._names import sanitize_tool_name

__all__ = [
    "ADAPTER_CONNECT_TIMEOUT",
    "DEFAULT_CALL_TIMEOUT",
    "DEFAULT_CONNECT_TIMEOUT",
    "MCPServerConfig",
    "MCPServerHTTP",
    "MCPServerSSE",
    "MCPServerStdio",
    "to_server_config",
    "to_server_configs",
]

DEFAULT_CONNECT_TIMEOUT = 10.0
"""Seconds to start a server (or reach it) and finish the MCP handshake (CrewAI's value for
``Agent(mcps=[...])``). A Python server built with the SDK spends about a second of CPU importing it
before it answers: on a busy machine that can take longer than this."""
ADAPTER_CONNECT_TIMEOUT = 30.0
"""``MCPServerAdapter``'s default ``connect_timeout`` (CrewAI's value for the adapter)."""
DEFAULT_CALL_TIMEOUT = 30.0
"""Seconds one tool call may take before it is a failure (CrewAI's value)."""


class _ServerBase(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    tool_filter: Any = Field(default=None, description="Keeps the tools it returns True for")
    cache_tools_list: bool = Field(
        default=False, description="Keep the discovered tool list for the whole process (else 5 minutes)"
    )
    name: str | None = Field(default=None, description="crewgraph: the prefix of this server's tool names")
    connect_timeout: float = Field(default=DEFAULT_CONNECT_TIMEOUT, gt=0)
    call_timeout: float = Field(default=DEFAULT_CALL_TIMEOUT, gt=0)
    only_tool: str | None = Field(default=None, description="Set by a 'url#tool' reference: keep one tool")

    transport: str = "stdio"

    @field_serializer("tool_filter", when_used="json")
    def _filter_json(self, value: Any) -> str | None:
        """A filter is code: JSON dumps (checkpoints, ``Agent.model_dump``) name it."""
        if value is None:
            return None
        return getattr(value, "__qualname__", None) or repr(value)

    def server_name(self) -> str:
        """The namespace of this server's tools (``<server>_<tool>``)."""
        return sanitize_tool_name(self.name or self._derived_name())

    def _derived_name(self) -> str:  # pragma: no cover - overridden
        return "mcp"

    def identity(self) -> dict[str, Any]:
        """What makes two configs the same server (filters and timeouts do not)."""
        return self.model_dump(include=self._identity_fields())

    def _identity_fields(self) -> set[str]:  # pragma: no cover - overridden
        return set()

    def fingerprint(self) -> str:
        data = json.dumps({"transport": self.transport, **self.identity()}, sort_keys=True, default=str)
        return hashlib.sha256(data.encode()).hexdigest()[:16]

    def describe(self) -> str:  # pragma: no cover - overridden
        return self.server_name()


class MCPServerStdio(_ServerBase):
    """A local server started as a subprocess, spoken to over its stdin/stdout."""

    transport: Literal["stdio"] = "stdio"
    command: str = Field(min_length=1, description="Executable: 'python', 'node', 'npx', 'uvx'...")
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] | None = Field(default=None, description="Added to a minimal inherited environment")
    cwd: str | None = None

    def _derived_name(self) -> str:
        """The script or package the command runs: ``python weather_server.py`` ->
        ``weather_server``, ``npx -y @scope/server-files /tmp`` -> ``server-files``,
        ``python -m pkg.search`` -> ``search``; else the command itself."""
        args = list(self.args)
        for i, arg in enumerate(args):
            if arg == "-m" and i + 1 < len(args):
                return args[i + 1].rsplit(".", 1)[-1]
            if arg.startswith("-") or arg in ("run", "exec", "x"):
                continue
            base = arg[1:] if arg.startswith("@") else arg
            base = base.split("@", 1)[0]  # npm version pins: pkg@1.2.3
            stem = PurePath(base).stem if base.endswith((".py", ".js", ".mjs", ".ts")) else PurePath(base).name
            if stem:
                return stem
        return PurePath(self.command).stem

    def _identity_fields(self) -> set[str]:
        return {"command", "args", "env", "cwd"}

    def describe(self) -> str:
        return f"{self.server_name()!r} ({' '.join([self.command, *self.args])})"


class _RemoteBase(_ServerBase):
    url: str = Field(min_length=1)
    headers: dict[str, str] | None = None
    verify: bool | str = True

    def _derived_name(self) -> str:
        parts = urlsplit(self.url)
        host = (parts.hostname or "mcp").removeprefix("www.").removeprefix("mcp.")
        return f"{host}_{parts.port}" if parts.port else host

    def describe(self) -> str:
        return f"{self.server_name()!r} ({_redact(self.url)})"


class MCPServerHTTP(_RemoteBase):
    """A remote server over streamable HTTP (``streamable=False`` selects SSE, as in CrewAI)."""

    transport: Literal["streamable-http"] = "streamable-http"
    streamable: bool = True

    def _identity_fields(self) -> set[str]:
        return {"url", "headers", "streamable", "verify"}


class MCPServerSSE(_RemoteBase):
    """A remote server over the older HTTP + Server-Sent Events transport."""

    transport: Literal["sse"] = "sse"

    def _identity_fields(self) -> set[str]:
        return {"url", "headers", "verify"}


MCPServerConfig = MCPServerStdio | MCPServerHTTP | MCPServerSSE

_TRANSPORTS = {"sse": "sse", "streamable-http": "http", "streamable_http": "http", "http": "http", "stdio": "stdio"}


def _redact(url: str) -> str:
    """A URL for messages: query strings often carry API keys (``?api_key=...``)."""
    return re.sub(r"\?.*$", "?...", url)


def _from_url(ref: str) -> MCPServerConfig:
    url, _, tool = ref.partition("#")
    only = sanitize_tool_name(tool) if tool else None
    path = urlsplit(url).path.rstrip("/")
    if path.endswith("/sse"):
        return MCPServerSSE(url=url, only_tool=only)
    return MCPServerHTTP(url=url, only_tool=only)


def _from_dict(entry: dict[str, Any]) -> MCPServerConfig:
    data = dict(entry)
    kind = str(data.pop("transport", "stdio" if "command" in data else "streamable-http")).lower()
    if kind not in _TRANSPORTS:
        raise ValueError(f"unknown MCP transport {kind!r}; use 'stdio', 'streamable-http' or 'sse'")
    if _TRANSPORTS[kind] == "stdio":
        return MCPServerStdio(**data)
    if _TRANSPORTS[kind] == "sse":
        return MCPServerSSE(**data)
    return MCPServerHTTP(**data)


def to_server_config(entry: Any) -> MCPServerConfig:
    """One ``mcps`` entry as a server config; anything else is a ValueError saying what is accepted."""
    if isinstance(entry, MCPServerStdio | MCPServerHTTP | MCPServerSSE):
        if isinstance(entry, MCPServerHTTP) and not entry.streamable:
            return MCPServerSSE(**entry.model_dump(exclude={"transport", "streamable"}))
        return entry
    if isinstance(entry, str):
        text = entry.strip()
        if text.startswith(("https://", "http://")):
            return _from_url(text)
        raise ValueError(
            f"MCP reference {entry!r} is not supported: crewgraph connects to servers you name — a URL "
            "('https://host/mcp', '...#tool_name' for one tool), MCPServerStdio(command=..., args=...), "
            "MCPServerHTTP(url=...) or MCPServerSSE(url=...). CrewAI AMP catalog references "
            "('crewai-amp:...', bare slugs like 'notion') need CrewAI's hosted platform"
        )
    if isinstance(entry, dict):
        return _from_dict(entry)
    if hasattr(entry, "command") and hasattr(entry, "args"):  # mcp.StdioServerParameters
        cwd = getattr(entry, "cwd", None)
        return MCPServerStdio(
            command=entry.command,
            args=list(entry.args or []),
            env=dict(entry.env) if getattr(entry, "env", None) else None,
            cwd=str(cwd) if cwd is not None else None,
        )
    raise ValueError(
        f"an MCP server must be a URL string, a dict, StdioServerParameters or "
        f"MCPServerStdio/MCPServerHTTP/MCPServerSSE, got {type(entry).__name__}"
    )


def to_server_configs(value: Any) -> list[MCPServerConfig]:
    """``Agent.mcps`` validated: each entry normalised; errors name the entry's position."""
    if value is None:
        return []
    if not isinstance(value, list | tuple):
        value = [value]
    out: list[MCPServerConfig] = []
    for i, entry in enumerate(value):
        try:
            out.append(to_server_config(entry))
        except ValueError as exc:
            raise ValueError(f"mcps[{i}]: {exc}") from None
    return out
