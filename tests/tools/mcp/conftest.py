"""MCP test servers: the stdio script as a config, and HTTP/SSE servers on 127.0.0.1."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _mcp_servers import SERVER, HTTPServer, WebServers

from crewgraph.tools.mcp import MCPServerStdio, clear_tool_cache


def _require_mcp() -> None:
    """Skips the test; called at setup, not at import, so collecting the suite does not import the library."""
    pytest.importorskip("mcp", reason="the mcp extra is not installed: pip install 'crewgraph[mcp]'")


@pytest.fixture(autouse=True)
def _mcp_installed() -> None:
    """Function scope: a module-scoped autouse fixture would make the module one xdist group."""
    _require_mcp()


@pytest.fixture(autouse=True)
def _fresh_listings() -> Iterator[None]:
    clear_tool_cache()
    yield
    clear_tool_cache()


@pytest.fixture
def starts_file(tmp_path: Path) -> Path:
    return tmp_path / "starts.txt"


@pytest.fixture
def stdio_server(starts_file: Path) -> MCPServerStdio:
    return MCPServerStdio(
        command=sys.executable,
        args=[str(SERVER)],
        env={"MCP_TEST_STARTS": str(starts_file)},
        name="testsrv",
        connect_timeout=20,
        call_timeout=10,
    )


@pytest.fixture(scope="session")
def web_servers() -> Iterator[WebServers]:
    """One process for the whole session (per xdist worker) serving HTTP and SSE."""
    _require_mcp()  # session fixtures set up before the autouse one
    servers = WebServers()
    yield servers
    servers.stop()


@pytest.fixture
def http_server(web_servers: WebServers) -> HTTPServer:
    return web_servers.http


@pytest.fixture
def sse_server(web_servers: WebServers) -> HTTPServer:
    return web_servers.sse
