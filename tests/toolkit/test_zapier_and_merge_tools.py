"""Zapier AI Actions and Merge Agent Handler against local stand-ins speaking their APIs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService, FakeRequestRecord
from crewgraph.toolkit import MergeAgentHandlerTool, ZapierActionTool, ZapierActionTools
from crewgraph.tools import ToolFailure

ACTIONS = {"results": [
    {"id": "01ABC", "description": "Send an email with Gmail", "meta": {"action_label": "Gmail: Send Email"},
     "params": {"to": {"description": "Recipient"}, "subject": {"description": "Subject"}}},
    {"id": "01DEF", "description": "Post to Slack", "meta": {"action_label": "Slack: Send Message"}, "params": {}},
]}
PACK_TOOLS = [{"name": "linear__create_issue", "description": "Create a Linear issue",
               "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}},
              {"name": "linear__get_issues", "description": "List issues", "inputSchema": {"type": "object", "properties": {}}}]


def _mcp(request: FakeRequestRecord) -> Any:
    if request.headers.get("authorization") != "Bearer ah-key":
        return 401, {"detail": "Invalid token"}
    rpc = request.json
    if rpc["method"] == "tools/list":
        return {"jsonrpc": "2.0", "id": rpc["id"], "result": {"tools": PACK_TOOLS}}
    args = rpc["params"]["arguments"]
    if not args.get("title"):
        return {"jsonrpc": "2.0", "id": rpc["id"], "error": {"code": -32602, "message": "title is required"}}
    return {"jsonrpc": "2.0", "id": rpc["id"], "result": {"content": [
        {"type": "text", "text": json.dumps({"id": "ISS-1", "title": args["title"]})}]}}


@pytest.fixture(scope="module")
def api() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({
        "GET /api/v2/ai-actions": lambda r: ACTIONS if r.headers.get("x-api-key") == "zap-key" else (401, {"error": "bad"}),
        "POST /api/v2/ai-actions/{id}/execute/": lambda r: {"id": "run-1", "action_used": r.params["id"],
                                                              "status": "success", "result": [{"ok": True}]},
        "POST /api/v1/tool-packs/{pack}/registered-users/{user}/mcp": _mcp,
    }) as service:
        yield service


def test_zapier_lists_actions_and_executes_one(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZAPIER_API_KEY", "zap-key")
    monkeypatch.setenv("ZAPIER_BASE_URL", api.url)
    tools = ZapierActionTools()
    assert [t.name for t in tools] == ["gmail_send_email", "slack_send_message"]
    gmail = ZapierActionTools(action_list=["gmail_send_email"])[0]
    assert set(gmail.to_spec().parameters["properties"]) == {"instructions", "to", "subject"}
    reply = gmail.run(instructions="Say hi", to="ada@example.com", subject="Hello")
    assert reply["action_used"] == "01ABC"
    assert api.requests_to("/api/v2/ai-actions/01ABC/execute/")[-1].json == {
        "instructions": "Say hi", "params": {"to": {"value": "ada@example.com", "mode": "guess"},
                                             "subject": {"value": "Hello", "mode": "guess"}}}
    by_hand = ZapierActionTool(name="slack", description="Slack", action_id="01DEF")
    assert by_hand.run(instructions="Post 'done'")["status"] == "success"


def test_zapier_needs_a_key(monkeypatch: pytest.MonkeyPatch, api: FakeHTTPService) -> None:
    monkeypatch.delenv("ZAPIER_API_KEY", raising=False)
    with pytest.raises(ValueError, match="ZAPIER_API_KEY"):
        ZapierActionTools()
    with pytest.raises(RuntimeError, match="could not list"):
        ZapierActionTools("wrong", base_url=api.url)


def test_merge_tool_from_the_pack_schema(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_HANDLER_API_KEY", "ah-key")
    monkeypatch.setenv("AGENT_HANDLER_BASE_URL", api.url)
    tool = MergeAgentHandlerTool.from_tool_name("linear__create_issue", tool_pack_id="pack-1", registered_user_id="user-1")
    assert tool.description == "Create a Linear issue" and tool.to_spec().parameters["required"] == ["title"]
    assert tool.run(title="Fix the bug") == {"id": "ISS-1", "title": "Fix the bug"}
    sent = api.requests_to("/api/v1/tool-packs/pack-1/registered-users/user-1/mcp")[-1]
    assert sent.json["method"] == "tools/call" and sent.json["params"] == {"name": "linear__create_issue",
                                                                            "arguments": {"title": "Fix the bug"}}
    assert sent.headers["mcp-session-id"] == tool.session_id
    pack = MergeAgentHandlerTool.from_tool_pack("pack-1", "user-1")
    assert [t.name for t in pack] == ["linear__create_issue", "linear__get_issues"]
    failed = pack[1].run()
    assert isinstance(failed, ToolFailure) and "title is required" in failed.message
    with pytest.raises(RuntimeError, match="no tool"):
        MergeAgentHandlerTool.from_tool_pack("pack-1", "user-1", tool_names=["nope"])
    monkeypatch.delenv("AGENT_HANDLER_API_KEY")
    assert "AGENT_HANDLER_API_KEY" in MergeAgentHandlerTool(tool_pack_id="p", registered_user_id="u",
                                                            tool_name="t").config_problems()[0]


def test_crewai_s_zapier_adapter_path(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    from crewgraph.toolkit.adapters.zapier_adapter import ZapierActionsAdapter
    from crewgraph.toolkit.adapters.zapier_adapter import ZapierActionTool as AdapterTool

    assert AdapterTool is ZapierActionTool
    monkeypatch.delenv("ZAPIER_API_KEY", raising=False)
    with pytest.raises(ValueError, match="ZAPIER_API_KEY"):
        ZapierActionsAdapter()
    adapter = ZapierActionsAdapter("zap-key", base_url=api.url)
    assert [a["id"] for a in adapter.get_zapier_actions()["results"]] == ["01ABC", "01DEF"]
    tools = adapter.tools()
    assert [t.name for t in tools] == ["gmail_send_email", "slack_send_message"]
    assert tools[1].run(instructions="Post")["action_used"] == "01DEF"
    with pytest.raises(RuntimeError, match="could not list"):
        ZapierActionsAdapter("wrong", base_url=api.url).get_zapier_actions()
