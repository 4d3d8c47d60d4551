"""The Brave Search tools against a local stand-in speaking Brave's API (GET, X-Subscription-Token)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService, FakeRequestRecord
from crewgraph.toolkit import (
    BraveImageSearchTool,
    BraveLLMContextTool,
    BraveLocalPOIsDescriptionTool,
    BraveLocalPOIsTool,
    BraveNewsSearchTool,
    BraveSearchTool,
    BraveVideoSearchTool,
    BraveWebSearchTool,
)
from crewgraph.tools import ToolFailure

WEB = {"type": "search", "query": {"original": "crewgraph"}, "web": {"type": "search", "results": [
    {"title": "CrewGraph", "url": "https://crewgraph.example", "description": "Agents on a DAG.",
     "extra_snippets": ["one", "two"]},
    {"title": "Docs", "url": "https://docs.example", "description": "The docs."},
]}}
NEWS = {"type": "news", "results": [{"title": "AI news", "url": "https://news.example/1", "description": "Today.",
                                     "age": "1 hour ago"}]}
IMAGES = {"type": "images", "results": [
    {"title": "Cat", "url": "https://page.example", "properties": {"url": "https://img.example/cat.jpg",
                                                                   "width": 640, "height": 480}},
    {"title": "Dog", "properties": {"url": "https://img.example/dog.jpg"}},
]}
POIS = {"type": "local_pois", "results": [{
    "title": "Cafe", "url": "https://cafe.example", "description": "Coffee.", "id": "loc1",
    "postal_address": {"displayAddress": "1 Main St"}, "contact": {"telephone": "+1 555"},
    "opening_hours": {"current_day": [{"abbr_name": "Mon", "full_name": "Monday", "opens": "08:00", "closes": "17:00"}],
                      "days": [[{"full_name": "Tuesday", "opens": "09:00", "closes": "18:00"}]]},
}]}
LLM_CONTEXT = {"grounding": {"generic": [{"url": "https://a.example", "title": "A", "snippets": ["s"]}]}, "sources": {}}


def _auth(reply: Any) -> Any:
    def handler(request: FakeRequestRecord) -> Any:
        if request.headers.get("x-subscription-token") != "brave-key":
            return 401, {"type": "ErrorResponse", "error": {"code": "SUBSCRIPTION_TOKEN_INVALID", "detail": "bad token",
                                                             "status": 401}}
        return reply
    return handler


@pytest.fixture(scope="module")
def api() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({
        "GET /res/v1/web/search": _auth(WEB),
        "GET /res/v1/news/search": _auth(NEWS),
        "GET /res/v1/videos/search": _auth(NEWS),
        "GET /res/v1/images/search": _auth(IMAGES),
        "GET /res/v1/llm/context": _auth(LLM_CONTEXT),
        "GET /res/v1/local/pois": _auth(POIS),
        "GET /res/v1/local/descriptions": _auth({"type": "local_descriptions", "results": [
            {"type": "local_description", "id": "loc1", "description": "A cosy cafe."}]}),
    }) as service:
        yield service


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, api: FakeHTTPService) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", "brave-key")
    monkeypatch.setenv("BRAVE_BASE_URL", api.url + "/res/v1")


def _tool(cls: type, **kw: Any) -> Any:
    return cls(requests_per_second=0, **kw)


def test_web_search_request_and_trimmed_results(api: FakeHTTPService) -> None:
    tool = _tool(BraveWebSearchTool, n_results=5, country="US", headers={"x-loc-lat": "48.8"})
    result = tool.run(q="crewgraph", goggles=["https://g.example/1", "https://g.example/2"],
                      result_filter=["web", "news"], safesearch="strict", offset=0, spellcheck=False, search_lang="")
    sent = api.requests_to("/res/v1/web/search")[-1]
    assert sent.headers["x-subscription-token"] == "brave-key" and sent.headers["x-loc-lat"] == "48.8"
    assert sent.query == {"q": ["crewgraph"], "goggles": ["https://g.example/1", "https://g.example/2"],
                          "result_filter": ["web,news"], "safesearch": ["strict"], "offset": ["0"],
                          "spellcheck": ["false"], "count": ["5"], "country": ["US"]}
    assert result == [{"url": "https://crewgraph.example", "title": "CrewGraph", "snippets": ["one", "two"]},
                      {"url": "https://docs.example", "title": "Docs", "snippets": ["The docs."]}]


def test_brave_search_tool_is_the_web_search(api: FakeHTTPService) -> None:
    tool = _tool(BraveSearchTool)
    assert tool.name == "Brave Search"
    assert tool.run(q="crewgraph")[0]["title"] == "CrewGraph"
    assert api.requests_to("/res/v1/web/search")[-1].query["count"] == ["10"]


def test_news_video_image_and_context(api: FakeHTTPService) -> None:
    assert _tool(BraveNewsSearchTool).run(q="ai", freshness="pd") == [
        {"url": "https://news.example/1", "title": "AI news", "description": "Today."}]
    assert api.requests_to("/res/v1/news/search")[-1].query["freshness"] == ["pd"]
    assert _tool(BraveVideoSearchTool).run(q="ai")[0]["title"] == "AI news"
    assert _tool(BraveImageSearchTool).run(q="cat", count=2) == [
        {"title": "Cat", "url": "https://img.example/cat.jpg", "dimensions": "640x480"},
        {"title": "Dog", "url": "https://img.example/dog.jpg", "dimensions": None}]
    assert _tool(BraveLLMContextTool).run(q="x", maximum_number_of_tokens=2048) == LLM_CONTEXT
    assert api.requests_to("/res/v1/llm/context")[-1].query["maximum_number_of_tokens"] == ["2048"]


def test_local_pois_and_descriptions(api: FakeHTTPService) -> None:
    places = _tool(BraveLocalPOIsTool).run(ids=["loc1", "loc2"], units="metric")
    assert api.requests_to("/res/v1/local/pois")[-1].query == {"ids": ["loc1", "loc2"], "units": ["metric"]}
    assert places == [{"title": "Cafe", "url": "https://cafe.example", "description": "Coffee.", "address": "1 Main St",
                       "contact": "+1 555", "opening_hours": [
                           {"day": "monday", "opens": "08:00", "closes": "17:00"},
                           {"day": "tuesday", "opens": "09:00", "closes": "18:00"}]}]
    assert _tool(BraveLocalPOIsDescriptionTool).run(ids=["loc1"]) == [{"id": "loc1", "description": "A cosy cafe."}]


def test_raw_save_file_and_search_url(api: FakeHTTPService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BRAVE_BASE_URL")
    tool = _tool(BraveNewsSearchTool, raw=True, save_file=True, search_url=api.url + "/res/v1/news/search")
    assert tool.run(q="ai") == NEWS
    saved = list(tmp_path.glob("search_results_*.txt"))
    assert len(saved) == 1 and json.loads(saved[0].read_text()) == NEWS


def test_bad_arguments_key_and_options(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="country"):
        _tool(BraveWebSearchTool).run(q="x", country="usa")
    denied = _tool(BraveWebSearchTool, api_key="wrong").run(q="x")
    assert isinstance(denied, ToolFailure) and denied.code == "http_401" and "BRAVE_API_KEY" in denied.message
    monkeypatch.delenv("BRAVE_API_KEY")
    missing = _tool(BraveWebSearchTool)
    assert "BRAVE_API_KEY" in missing.config_problems()[0]
    assert isinstance(missing.run(q="x"), ToolFailure)
    with pytest.raises(ValueError, match="header_schema"):
        BraveWebSearchTool(header_schema=dict)


def test_requests_are_paced(api: FakeHTTPService) -> None:
    import time

    tool = BraveVideoSearchTool(requests_per_second=10)
    started = time.monotonic()
    for _ in range(3):
        tool.run(q="ai")
    assert time.monotonic() - started >= 0.2
