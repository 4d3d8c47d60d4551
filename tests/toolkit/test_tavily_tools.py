"""The Tavily tools against a local stand-in speaking Tavily's REST API (Bearer key, JSON bodies)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService, FakeRequestRecord
from crewgraph.toolkit import (
    TavilyExtractorTool,
    TavilyGetResearchTool,
    TavilyResearchTool,
    TavilySearchTool,
)
from crewgraph.tools import ToolFailure

SEARCH = {"query": "agents", "answer": "Agents act.", "images": [], "response_time": 1.2, "results": [
    {"title": "A", "url": "https://a.example", "content": "x" * 50, "score": 0.9, "raw_content": None},
    {"title": "B", "url": "https://b.example", "content": "short", "score": 0.5},
]}
EXTRACT = {"results": [{"url": "https://a.example", "raw_content": "# A\nBody", "images": []}],
           "failed_results": [], "response_time": 0.5}
STARTED = {"request_id": "req-1", "created_at": "2025-01-01T00:00:00Z", "status": "pending", "input": "q", "model": "mini"}
DONE = {"request_id": "req-1", "status": "completed", "content": "The report [1].", "sources": [{"url": "https://s.example"}]}


def _auth(reply: Any) -> Any:
    def handler(request: FakeRequestRecord) -> Any:
        if request.headers.get("authorization") != "Bearer tvly-key":
            return 401, {"detail": {"error": "Unauthorized: missing or invalid API key."}}
        return reply
    return handler


@pytest.fixture(scope="module")
def api() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({
        "POST /search": _auth(SEARCH), "POST /extract": _auth(EXTRACT),
        "POST /research": _auth(STARTED), "GET /research/{id}": _auth(DONE),
    }) as service:
        yield service


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, api: FakeHTTPService) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-key")
    monkeypatch.setenv("TAVILY_BASE_URL", api.url)


def test_search_body_and_truncated_content(api: FakeHTTPService) -> None:
    tool = TavilySearchTool(max_results=2, include_answer=True, include_domains=["a.example"], time_range="week",
                            max_content_length_per_result=10)
    result = json.loads(tool.run(query="agents"))
    assert api.requests_to("/search")[-1].json == {
        "query": "agents", "search_depth": "basic", "topic": "general", "days": 7, "max_results": 2,
        "include_answer": True, "include_raw_content": False, "include_images": False, "time_range": "week",
        "include_domains": ["a.example"]}
    assert result["answer"] == "Agents act."
    assert [r["content"] for r in result["results"]] == ["x" * 10 + "...", "short"]


def test_extract_one_or_many_urls(api: FakeHTTPService) -> None:
    tool = TavilyExtractorTool(extract_depth="advanced")
    assert json.loads(tool.run(urls="https://a.example")) == EXTRACT
    assert api.requests_to("/extract")[-1].json == {"urls": "https://a.example", "extract_depth": "advanced",
                                                    "include_images": False}
    tool.run(urls=["https://a.example", "https://b.example"])
    assert api.requests_to("/extract")[-1].json["urls"] == ["https://a.example", "https://b.example"]


def test_research_then_get_research(api: FakeHTTPService) -> None:
    started = json.loads(TavilyResearchTool(model="mini").run(input="q", citation_format="apa",
                                                              output_schema={"type": "object"}))
    assert api.requests_to("/research")[-1].json == {"input": "q", "model": "mini", "citation_format": "apa",
                                                     "stream": False, "output_schema": {"type": "object"}}
    report = json.loads(TavilyGetResearchTool().run(request_id=started["request_id"]))
    assert report["content"] == "The report [1]." and api.requests_to("/research/req-1")
    streamed = TavilyResearchTool().run(input="q", stream=True)
    assert isinstance(streamed, ToolFailure) and "stream" in streamed.message


def test_bad_key_missing_key_and_client_option(monkeypatch: pytest.MonkeyPatch) -> None:
    denied = TavilySearchTool(api_key="nope").run(query="x")
    assert isinstance(denied, ToolFailure) and "invalid API key" in denied.message and "TAVILY_API_KEY" in denied.message
    monkeypatch.delenv("TAVILY_API_KEY")
    assert "TAVILY_API_KEY" in TavilyExtractorTool().config_problems()[0]
    with pytest.raises(ValueError, match="client"):
        TavilySearchTool(client=object())
