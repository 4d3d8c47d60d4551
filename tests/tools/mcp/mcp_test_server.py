"""A small MCP server built with the official SDK, for the tests (stdio, streamable HTTP or SSE).

    python mcp_test_server.py                 # stdio
    python mcp_test_server.py http PORT       # streamable HTTP at http://127.0.0.1:PORT/mcp
    python mcp_test_server.py sse PORT        # SSE at http://127.0.0.1:PORT/sse
    python mcp_test_server.py web PORT1 PORT2 # both from one process: HTTP on PORT1, SSE on PORT2

Each start appends a line "<pid>" to $MCP_TEST_STARTS (when set), so tests can
count how many server processes a run started.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from mcp.server.mcpserver import MCPServer

server = MCPServer("testsrv")
_calls = {"n": 0}


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    _calls["n"] += 1
    return a + b


@server.tool()
def echo(text: str, times: int = 1) -> str:
    """Repeat a text."""
    _calls["n"] += 1
    return " ".join([text] * times)


@server.tool()
def whoami() -> str:
    """The server's process id and how many calls it has served."""
    _calls["n"] += 1
    return f"pid={os.getpid()} calls={_calls['n']}"


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the reason (an isError result)."""
    raise ValueError(reason)


@server.tool()
def crash() -> str:
    """Kill the server process without answering."""
    os._exit(3)


@server.tool()
async def slow(seconds: float) -> str:
    """Wait, then answer."""
    import anyio

    await anyio.sleep(seconds)
    return "finally"


@server.tool()
async def spawn_and_hang(pid_file: str) -> str:
    """Start a child that leaves the session (a daemon), write its pid, then hang."""
    import subprocess

    import anyio

    child = subprocess.Popen(["sleep", "120"], start_new_session=True)
    with open(pid_file, "w", encoding="utf-8") as fh:
        fh.write(str(child.pid))
    await anyio.sleep(120)
    return "never"


@server.prompt()
def review(code: str) -> str:
    """Ask for a review of some code."""
    return f"Please review this code:\n{code}"


def main() -> None:
    starts = os.environ.get("MCP_TEST_STARTS")
    if starts:
        with open(starts, "a", encoding="utf-8") as fh:
            fh.write(f"{os.getpid()}\n")
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "stdio":
        server.run("stdio")
        return
    import anyio
    import uvicorn

    apps: dict[str, Any] = {"http": server.streamable_http_app, "sse": server.sse_app}
    modes = ["http", "sse"] if mode == "web" else [mode]
    servers = [
        uvicorn.Server(uvicorn.Config(apps[m](), host="127.0.0.1", port=int(port), log_level="warning"))
        for m, port in zip(modes, sys.argv[2:], strict=True)
    ]

    async def serve() -> None:  # one event loop, one uvicorn server (and app lifespan) per transport
        async with anyio.create_task_group() as group:
            for web in servers:
                group.start_soon(web.serve)

    anyio.run(serve)


if __name__ == "__main__":
    main()
