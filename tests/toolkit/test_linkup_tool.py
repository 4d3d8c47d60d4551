"""LinkupSearchTool against a local stand-in speaking Linkup's /v1/search API."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService, FakeRequestRecord
from crewgraph.toolkit import LinkupSearchTool
from crewgraph.tools import ToolFailure


def _search(request: FakeRequestRecord) -> Any:
    if request.headers.get("authorization") != "Bearer lk-key":
        return 401, {"statusCode": 401, "error": {"code": "UNAUTHORIZED", "message": "Invalid API key"}}
    if request.json["outputType"] == "sourcedAnswer":
        return {"answer": "Paris.", "sources": [{"name": "Wiki", "url": "https://w.example", "snippet": "..."}]}
    return {"results": [{"type": "text", "name": "Hit", "url": "https://hit.example", "content": "Body"}]}


@pytest.fixture(scope="module")
def api() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({"POST /v1/search": _search}) as service:
        yield service


def test_search_results_and_sourced_answer(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LINKUP_API_KEY", "lk-key")
    tool = LinkupSearchTool(base_url=api.url)
    assert tool.run(query="capital of France", depth="deep") == {
        "success": True, "results": [{"name": "Hit", "url": "https://hit.example", "content": "Body"}]}
    assert api.requests_to("/v1/search")[-1].json == {"q": "capital of France", "depth": "deep",
                                                      "outputType": "searchResults"}
    assert tool.run(query="x", output_type="sourcedAnswer")["answer"] == "Paris."
    assert tool.run(query="x", output_type="structured").code == "unsupported_option"


def test_bad_and_missing_key(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    denied = LinkupSearchTool(base_url=api.url, api_key="bad").run(query="x")
    assert isinstance(denied, ToolFailure) and "Invalid API key" in denied.message
    monkeypatch.delenv("LINKUP_API_KEY", raising=False)
    assert "LINKUP_API_KEY" in LinkupSearchTool().config_problems()[0]
