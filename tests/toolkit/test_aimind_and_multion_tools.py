"""AIMindTool (Minds API) and MultiOnTool (MultiOn browse API) against local stand-ins."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService, FakeRequestRecord
from crewgraph.toolkit import AIMindTool, MultiOnTool
from crewgraph.tools import ToolFailure

SOURCE = {"engine": "postgres", "description": "sales", "connection_data": {"host": "db", "database": "shop"},
          "tables": ["orders"]}


def _chat(request: FakeRequestRecord) -> Any:
    if request.headers.get("authorization") != "Bearer minds-key":
        return 401, {"detail": "Invalid API key"}
    return {"id": "c1", "object": "chat.completion", "choices": [{"index": 0, "finish_reason": "stop", "message": {
        "role": "assistant", "content": f"{request.json['model']}: 42 orders"}}]}


def _browse(request: FakeRequestRecord) -> Any:
    if request.headers.get("x_multion_api_key") != "mo-key":
        return 401, {"detail": "bad key"}
    step = request.json
    return {"message": f"did {step['cmd']}", "status": "CONTINUE" if step["session_id"] is None else "DONE",
            "session_id": "sess-1", "url": "https://example.com"}


@pytest.fixture(scope="module")
def api() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({
        "POST /api/datasources": {"name": "ok"},
        "POST /api/projects/mindsdb/minds": {"name": "ok"},
        "POST /chat/completions": _chat,
        "POST /v1/web/browse": _browse,
    }) as service:
        yield service


def test_aimind_creates_the_mind_once_then_asks_it(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MINDS_API_KEY", "minds-key")
    monkeypatch.setenv("MINDS_BASE_URL", api.url)
    tool = AIMindTool(datasources=[SOURCE])
    assert api.requests_to("/api/datasources") == []  # nothing is created until it is used
    answer = tool.run(query="How many orders?")
    mind = api.requests_to("/api/projects/mindsdb/minds")[-1].json
    assert answer == f"{mind['name']}: 42 orders" and mind["name"].startswith("crwai_mind_")
    source = api.requests_to("/api/datasources")[-1].json
    assert source["engine"] == "postgres" and mind["datasources"] == [source["name"]]
    tool.run(query="again")
    assert len(api.requests_to("/api/projects/mindsdb/minds")) == 1
    assert AIMindTool(mind_name="existing").run(query="x") == "existing: 42 orders"
    with pytest.raises(ValueError, match="tables"):
        AIMindTool(datasources=[{"engine": "postgres", "description": "", "connection_data": {}}])


def test_multion_keeps_the_session(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    tool = MultiOnTool(base_url=api.url, api_key="mo-key", max_steps=5)
    assert tool.run(cmd="find the price") == "did find the price\n\n STATUS: CONTINUE"
    assert tool.run(cmd="find the price") == "did find the price\n\n STATUS: DONE"
    sent = api.requests_to("/v1/web/browse")
    assert sent[0].json == {"cmd": "find the price", "session_id": None, "local": False, "max_steps": 5}
    assert sent[1].json["session_id"] == "sess-1"
    monkeypatch.delenv("MULTION_API_KEY", raising=False)
    assert "MULTION_API_KEY" in MultiOnTool().config_problems()[0]
    denied = MultiOnTool(base_url=api.url, api_key="no").run(cmd="x")
    assert isinstance(denied, ToolFailure) and denied.code == "http_401"
