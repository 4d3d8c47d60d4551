"""MCP tools inside crews: discovered at compile, one session per server per run, closed after."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
from _mcp_servers import HTTPServer, started

from crewgraph import Agent, CompileError, Crew, Task
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import ToolFailureReason
from crewgraph.tools.mcp import MCPServerAdapter, MCPServerHTTP, MCPServerStdio


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "zombie" in status.read_text())


def _tool_messages(llm: FakeLLM) -> list[str]:
    return [m["content"] for m in llm.calls[-1].messages if m.get("role") == "tool"]


def _crew(llm: FakeLLM, mcps: list[object], *, tasks: int = 1, **agent: object) -> Crew:
    worker = Agent(role="Operator", goal="Use the server", mcps=mcps, llm=llm, cache=False, **agent)
    return Crew(
        agents=[worker],
        tasks=[Task(description=f"Step {i + 1}", expected_output="a report", agent=worker) for i in range(tasks)],
    )


def test_mcp_tools_are_tool_nodes_of_the_plan(http_server: HTTPServer) -> None:
    graph = _crew(FakeLLM(), [MCPServerHTTP(url=http_server.url, name="testsrv")]).compile()
    tool_nodes = {nid: graph.graph.nodes[nid] for nid in graph.graph.nodes if ".tool." in nid}
    assert "t1_step_1.tool.testsrv_add" in tool_nodes
    assert all(data["kind"] == "tool" for data in tool_nodes.values())
    assert graph.node("t1_step_1.tool.testsrv_add").tool.remote_name == "add"
    assert graph.graph.edges["t1_step_1.agent", "t1_step_1.tool.testsrv_add"]["kind"] == "may_call"


def test_one_session_per_run_shared_by_tasks_and_closed_at_the_end(
    stdio_server: MCPServerStdio, starts_file: Path
) -> None:
    llm = FakeLLM(
        [
            FakeToolCall("testsrv_whoami", {}),
            FakeToolCall("testsrv_add", {"a": 2, "b": 40}),
            "first done",
            FakeToolCall("testsrv_whoami", {}),
            "second done",
        ]
    )
    crew = _crew(llm, [stdio_server], tasks=2)
    result = crew.kickoff()
    assert result.raw == "second done"
    pids = started(starts_file)
    assert len(pids) == 2, pids  # one listing at compile, one session for the whole run
    run_pid = pids[-1]
    messages = [m["content"] for call in llm.calls for m in call.messages if m.get("role") == "tool"]
    assert f"pid={run_pid} calls=1" in messages
    assert "42" in messages
    assert f"pid={run_pid} calls=3" in messages  # same process across both tasks
    assert not _alive(run_pid)  # closed when the run ended


def test_is_error_result_is_a_recorded_tool_failure(http_server: HTTPServer) -> None:
    llm = FakeLLM([FakeToolCall("testsrv_fail", {"reason": "quota exceeded"}), "gave up"])
    result = _crew(llm, [MCPServerHTTP(url=http_server.url, name="testsrv")]).kickoff()
    assert result.raw == "gave up"
    [failure] = result.tool_failures
    assert failure.tool_name == "testsrv_fail"
    assert failure.reason is ToolFailureReason.MCP_ERROR
    assert failure.code == "mcp_tool_error"
    assert "reported an error" in _tool_messages(llm)[0]


def test_server_dying_mid_run_is_a_failure_naming_it_not_a_hang(
    stdio_server: MCPServerStdio, starts_file: Path
) -> None:
    llm = FakeLLM(
        [FakeToolCall("testsrv_crash", {}), FakeToolCall("testsrv_add", {"a": 1, "b": 1}), "server is gone"]
    )
    start = time.monotonic()
    result = _crew(llm, [stdio_server]).kickoff()
    assert time.monotonic() - start < 30
    assert result.raw == "server is gone"
    assert [f.tool_name for f in result.tool_failures] == ["testsrv_crash", "testsrv_add"]
    for failure in result.tool_failures:
        assert failure.code == "mcp_server_error"
        assert "'testsrv'" in failure.message and "not running" in failure.message
    assert not any(_alive(pid) for pid in started(starts_file))


def test_slow_call_times_out(http_server: HTTPServer) -> None:
    quick = MCPServerHTTP(url=http_server.url, name="testsrv", call_timeout=0.5)
    llm = FakeLLM([FakeToolCall("testsrv_slow", {"seconds": 20}), "too slow"])
    start = time.monotonic()
    result = _crew(llm, [quick]).kickoff()
    assert time.monotonic() - start < 25
    [failure] = result.tool_failures
    assert failure.code == "mcp_timeout" and "call_timeout" in failure.message


def test_sessions_close_when_the_run_fails(stdio_server: MCPServerStdio, starts_file: Path) -> None:
    llm = FakeLLM([FakeToolCall("testsrv_add", {"a": 1, "b": 2}), RuntimeError("model broke")])
    with pytest.raises(Exception, match="model broke"):
        _crew(llm, [stdio_server], max_retry_limit=0).kickoff()
    pids = started(starts_file)
    assert len(pids) == 2 and not any(_alive(pid) for pid in pids)


def test_sessions_close_when_the_run_is_cancelled(stdio_server: MCPServerStdio, starts_file: Path) -> None:
    llm = FakeLLM([FakeToolCall("testsrv_slow", {"seconds": 8}), "never"])
    crew = _crew(llm, [stdio_server])

    async def scenario() -> None:
        task = asyncio.create_task(crew.kickoff_async())
        deadline = time.monotonic() + 20
        while len(started(starts_file)) < 2 and time.monotonic() < deadline:  # the run's session is up
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(asyncio.wait_for(scenario(), 60))
    pids = started(starts_file)
    assert len(pids) == 2 and not any(_alive(pid) for pid in pids)


def test_unreachable_server_fails_compile_naming_task_and_agent() -> None:
    crew = _crew(FakeLLM(), [MCPServerHTTP(url="http://127.0.0.1:9/mcp", name="weather", connect_timeout=3)])
    with pytest.raises(CompileError) as info:
        crew.compile()
    text = str(info.value)
    assert "'Operator'" in text and "'weather'" in text and "Step 1" in text


def test_http_server_url_in_a_crew(http_server: HTTPServer) -> None:
    llm = FakeLLM([FakeToolCall(f"127_0_0_1_{http_server.port}_echo", {"text": "hey", "times": 2}), "ok"])
    assert _crew(llm, [http_server.url]).kickoff().raw == "ok"
    assert _tool_messages(llm) == ["hey hey"]


def test_adapter_tools_in_a_crew(stdio_server: MCPServerStdio, starts_file: Path) -> None:
    from mcp import StdioServerParameters

    params = StdioServerParameters(command=stdio_server.command, args=stdio_server.args, env=stdio_server.env)
    with MCPServerAdapter(params, "add", "whoami") as tools:
        assert [t.name for t in tools] == ["add", "whoami"]
        assert tools["add"].run(a=1, b=2) == "3"
        llm = FakeLLM([FakeToolCall("whoami", {}), "ok"])
        worker = Agent(role="Operator", goal="Use the server", tools=tools, llm=llm)
        Crew(agents=[worker], tasks=[Task(description="Go", expected_output="x", agent=worker)]).kickoff()
        [pid] = started(starts_file)
        assert _tool_messages(llm) == [f"pid={pid} calls=2"]  # the adapter's own session
    assert not _alive(pid)


def test_mcp_events(http_server: HTTPServer) -> None:
    from crewgraph.events import (
        MCPConnectionCompletedEvent,
        MCPConnectionStartedEvent,
        MCPToolExecutionCompletedEvent,
        MCPToolExecutionFailedEvent,
        MCPToolExecutionStartedEvent,
        crewgraph_event_bus,
    )

    seen: list[object] = []
    llm = FakeLLM([FakeToolCall("ev_add", {"a": 1, "b": 2}), FakeToolCall("ev_fail", {"reason": "no"}), "done"])
    crew = _crew(llm, [MCPServerHTTP(url=http_server.url, name="ev")])
    kinds = (MCPConnectionStartedEvent, MCPConnectionCompletedEvent, MCPToolExecutionStartedEvent,
             MCPToolExecutionCompletedEvent, MCPToolExecutionFailedEvent)
    with crewgraph_event_bus.scoped_handlers():
        for kind in kinds:
            crewgraph_event_bus.on(kind)(lambda source, event: seen.append(event))
        crew.kickoff()
    names = [type(e).__name__ for e in seen]
    # the compile-time listing connects once; the run's session opens on the first call
    assert names == [
        "MCPConnectionStartedEvent", "MCPConnectionCompletedEvent",
        "MCPToolExecutionStartedEvent", "MCPConnectionStartedEvent", "MCPConnectionCompletedEvent",
        "MCPToolExecutionCompletedEvent",
        "MCPToolExecutionStartedEvent", "MCPToolExecutionFailedEvent",
    ]
    done = seen[5]
    assert done.tool_name == "add" and done.result == "3" and done.server_name == "ev"  # type: ignore[attr-defined]
    assert done.transport_type == "http"  # type: ignore[attr-defined]
    assert seen[7].error_type == "tool_error"  # type: ignore[attr-defined]
