"""crewai.mcp's MCPClient, transports and MCPToolResolver against the real test servers."""

from __future__ import annotations

import asyncio
import sys

import pytest
from _mcp_servers import SERVER, HTTPServer

from crewgraph import Agent
from crewgraph.mcp import (
    MCPClient,
    MCPServerHTTP,
    MCPToolResolver,
    TransportType,
    create_static_tool_filter,
)
from crewgraph.mcp.transports import HTTPTransport, SSETransport, StdioTransport


def _stdio() -> StdioTransport:
    return StdioTransport(command=sys.executable, args=[str(SERVER)])


async def _use(client: MCPClient) -> tuple[list[dict], object, object, list[dict], dict]:
    async with client:
        assert client.connected and client.transport.connected
        tools = await client.list_tools()
        added = await client.call_tool("add", {"a": 2, "b": 3})
        failed = await client.call_tool_result("fail", {"reason": "no way"})
        prompts = await client.list_prompts()
        prompt = await client.get_prompt("review", {"code": "x = 1"})
    assert not client.connected
    return tools, added, failed, prompts, prompt


def test_stdio_client_lists_calls_and_prompts() -> None:
    transport = _stdio()
    assert transport.transport_type is TransportType.STDIO and not transport.connected
    tools, added, failed, prompts, prompt = asyncio.run(_use(MCPClient(transport, connect_timeout=20)))
    by_name = {t["name"]: t for t in tools}
    assert by_name["add"]["original_name"] == "add" and by_name["add"]["description"] == "Add two integers."
    assert set(by_name["add"]["inputSchema"]["properties"]) == {"a", "b"}
    assert added == "5"
    assert failed.is_error and "Error executing tool fail" in failed.content  # type: ignore[attr-defined]
    assert prompts == [{"name": "review", "description": "Ask for a review of some code.",
                        "arguments": [{"name": "code", "description": "", "required": True}]}]
    assert prompt["name"] == "review" and "x = 1" in prompt["messages"][0]["content"]
    assert prompt["messages"][0]["role"] == "user"


def test_a_call_connects_first_and_the_session_needs_a_connection(http_server: HTTPServer) -> None:
    client = MCPClient(HTTPTransport(url=http_server.url), connect_timeout=20)
    with pytest.raises(RuntimeError, match="not connected"):
        _ = client.session

    async def go() -> object:
        try:
            return await client.call_tool("echo", {"text": "hi", "times": 2})
        finally:
            await client.disconnect()

    assert asyncio.run(go()) == "hi hi"


def test_http_and_sse_transports(http_server: HTTPServer, sse_server: HTTPServer) -> None:
    async def echo(client: MCPClient) -> object:
        async with client:
            return await client.call_tool("echo", {"text": "web"})

    http = HTTPTransport(url=http_server.url)
    assert http.transport_type is TransportType.STREAMABLE_HTTP
    assert asyncio.run(echo(MCPClient(http, connect_timeout=20))) == "web"
    sse = SSETransport(url=sse_server.url)
    assert sse.transport_type is TransportType.SSE
    assert asyncio.run(echo(MCPClient(sse, connect_timeout=20))) == "web"


def test_an_unreachable_server_is_a_connection_error() -> None:
    client = MCPClient(HTTPTransport(url="http://127.0.0.1:9/mcp"), connect_timeout=3)
    with pytest.raises(ConnectionError, match="Failed to connect to MCP server"):
        asyncio.run(client.connect())


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(TypeError, match="needs a transport"):
        MCPClient("python server.py")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_retries"):
        MCPClient(_stdio(), max_retries=0)


def test_resolver_gives_the_agent_tools(http_server: HTTPServer) -> None:
    agent = Agent(role="R", goal="g", backstory="b")
    resolver = MCPToolResolver(agent=agent)
    kept = MCPServerHTTP(url=http_server.url, name="testsrv",
                         tool_filter=create_static_tool_filter(allowed_tool_names=["add"]))
    tools = resolver.resolve([kept])
    assert [t.name for t in tools] == ["testsrv_add"]
    assert tools[0].run(a=1, b=4) == "5"
    assert resolver.clients == []
    resolver.cleanup()
    with pytest.raises(ValueError, match=r"mcps\[0\]"):
        resolver.resolve(["crewai-amp:notion"])
