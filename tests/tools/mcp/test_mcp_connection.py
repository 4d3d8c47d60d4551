"""MCP sessions against real servers: stdio subprocess, streamable HTTP and SSE on 127.0.0.1."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
from _mcp_servers import HTTPServer, started

from crewgraph.tools import ToolFailure, ToolFailureReason
from crewgraph.tools.mcp import (
    MCPServerError,
    MCPServerHTTP,
    MCPServerSSE,
    MCPServerStdio,
    create_static_tool_filter,
    mcp_tools,
    to_server_config,
)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "zombie" in status.read_text())


def test_stdio_tools_are_listed_namespaced_and_called(stdio_server: MCPServerStdio, starts_file: Path) -> None:
    tools = {t.name: t for t in mcp_tools([stdio_server])}
    assert {"testsrv_add", "testsrv_echo", "testsrv_fail", "testsrv_crash", "testsrv_slow"} <= set(tools)
    add = tools["testsrv_add"]
    assert add.remote_name == "add"
    assert add.to_spec().parameters["required"] == ["a", "b"]
    assert add.description == "Add two integers."
    assert add.run(a=2, b=3) == "5"  # outside a run: one session for the call
    assert all(not _alive(pid) for pid in started(starts_file))  # every session closed its server


def test_is_error_result_becomes_a_tool_failure(http_server: HTTPServer) -> None:
    server = MCPServerHTTP(url=http_server.url, name="testsrv")
    fail = next(t for t in mcp_tools([server]) if t.remote_name == "fail")
    result = fail.run(reason="no luck")
    assert isinstance(result, ToolFailure)
    assert result.reason is ToolFailureReason.MCP_ERROR
    assert result.code == "mcp_tool_error"
    assert "'fail'" in result.message and "'testsrv'" in result.message


def test_static_and_dynamic_filters(http_server: HTTPServer) -> None:
    stdio_server = MCPServerHTTP(url=http_server.url, name="testsrv")
    kept = stdio_server.model_copy(update={"tool_filter": create_static_tool_filter(["add", "echo"], ["echo"])})
    assert [t.remote_name for t in mcp_tools([kept])] == ["add"]
    seen: list[str] = []

    def dynamic(context, tool):  # type: ignore[no-untyped-def]
        seen.append(context.server_name)
        return tool["name"].startswith("e")

    dyn = stdio_server.model_copy(update={"tool_filter": dynamic})
    assert [t.remote_name for t in mcp_tools([dyn])] == ["echo"]
    assert seen and set(seen) == {"testsrv"}


def test_optional_arguments_left_out_use_the_server_default(http_server: HTTPServer) -> None:
    server = MCPServerHTTP(url=http_server.url)
    echo = next(t for t in mcp_tools([server]) if t.remote_name == "echo")
    assert echo.validate_arguments({"text": "hi"}) == {"text": "hi"}
    assert echo.run(**echo.validate_arguments({"text": "hi"})) == "hi"


def test_server_that_cannot_start_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "broken_server.py"
    bad.write_text("import sys\nprint('missing API key FOO', file=sys.stderr)\nsys.exit(2)\n")
    import sys

    config = MCPServerStdio(command=sys.executable, args=[str(bad)], connect_timeout=10)
    with pytest.raises(MCPServerError) as info:
        mcp_tools([config])
    text = str(info.value)
    assert "'broken_server'" in text and "missing API key FOO" in text


def test_server_that_never_answers_times_out_on_connect(tmp_path: Path) -> None:
    mute = tmp_path / "mute_server.py"
    mute.write_text("import time\ntime.sleep(60)\n")
    import sys

    config = MCPServerStdio(command=sys.executable, args=[str(mute)], connect_timeout=1.0)
    start = time.monotonic()
    with pytest.raises(MCPServerError, match="connect_timeout"):
        mcp_tools([config])
    assert time.monotonic() - start < 15


def test_call_timeout_and_crash_are_failures_naming_the_server(stdio_server: MCPServerStdio) -> None:
    from crewgraph.tools.mcp import MCPConnection

    async def scenario() -> tuple[object, object, object]:
        conn = await MCPConnection(stdio_server.model_copy(update={"call_timeout": 0.5})).start()
        try:
            with pytest.raises(MCPServerError, match="call_timeout"):
                await conn.call_tool("slow", {"seconds": 5})
            ok = await conn.call_tool("add", {"a": 1, "b": 1})  # the session survives a timeout
            with pytest.raises(MCPServerError, match="not running") as died:
                await conn.call_tool("crash", {})
            with pytest.raises(MCPServerError, match="not running") as after:
                await conn.call_tool("add", {"a": 1, "b": 1})
            return ok, died.value, after.value
        finally:
            await conn.aclose()

    ok, died, after = asyncio.run(asyncio.wait_for(scenario(), 60))
    assert ok.content[0].text == "2"  # type: ignore[attr-defined]
    assert "'testsrv'" in str(died) and "'testsrv'" in str(after)


def test_streamable_http_server(http_server: HTTPServer) -> None:
    config = to_server_config(http_server.url)
    assert isinstance(config, MCPServerHTTP)
    tools = {t.remote_name: t for t in mcp_tools([config])}
    assert tools["add"].name == f"127_0_0_1_{http_server.port}_add"
    assert tools["add"].run(a=20, b=22) == "42"
    only = to_server_config(http_server.url + "#echo")
    assert [t.remote_name for t in mcp_tools([only])] == ["echo"]


def test_sse_server(sse_server: HTTPServer) -> None:
    config = to_server_config(sse_server.url)
    assert isinstance(config, MCPServerSSE)
    named = MCPServerSSE(url=sse_server.url, name="events", headers={"X-Test": "1"})
    add = next(t for t in mcp_tools([named]) if t.remote_name == "add")
    assert add.name == "events_add"
    assert add.run(a=1, b=2) == "3"
    dict_form = to_server_config({"url": sse_server.url, "transport": "sse"})
    assert isinstance(dict_form, MCPServerSSE)


def test_unreachable_http_server_fails_fast() -> None:
    config = MCPServerHTTP(url="http://127.0.0.1:9/mcp", connect_timeout=3)
    start = time.monotonic()
    with pytest.raises(MCPServerError, match=r"cannot connect|handshake"):
        mcp_tools([config])
    assert time.monotonic() - start < 10


def test_configs_dump_to_json_with_their_filter_named() -> None:
    from crewgraph import Agent

    agent = Agent(role="r", goal="g", mcps=[MCPServerStdio(command="python", tool_filter=create_static_tool_filter(["a"]))])
    [dumped] = agent.model_dump(mode="json")["mcps"]
    assert dumped["command"] == "python" and dumped["tool_filter"].startswith("StaticToolFilter(")


def test_a_hung_servers_children_do_not_outlive_the_session(stdio_server: MCPServerStdio, tmp_path: Path) -> None:
    """The server starts a child that leaves its session and then hangs: after the timeout the
    session is closed, and neither the server nor its child is left running."""
    from crewgraph.tools.mcp import MCPConnection

    pid_file = tmp_path / "child.pid"

    async def scenario() -> None:
        conn = await MCPConnection(stdio_server.model_copy(update={"call_timeout": 1.0})).start()
        try:
            with pytest.raises(MCPServerError, match="call_timeout"):
                await conn.call_tool("spawn_and_hang", {"pid_file": str(pid_file)})
        finally:
            await conn.aclose()

    for _ in range(2):
        pid_file.unlink(missing_ok=True)
        asyncio.run(asyncio.wait_for(scenario(), 60))
        child = int(pid_file.read_text())
        deadline = time.monotonic() + 5
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child), "the server's child outlived the session"
