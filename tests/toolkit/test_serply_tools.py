"""The Serply tools against a local stand-in speaking Serply's API (query in the path, X-API-KEY)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService, FakeRequestRecord
from crewgraph.toolkit import (
    SerplyJobSearchTool,
    SerplyNewsSearchTool,
    SerplyScholarSearchTool,
    SerplyWebpageToMarkdownTool,
    SerplyWebSearchTool,
)
from crewgraph.tools import ToolFailure


def _auth(reply: Any) -> Any:
    def handler(request: FakeRequestRecord) -> Any:
        if request.headers.get("x-api-key") != "serply-key":
            return 401, {"message": "Invalid API key"}
        return reply(request) if callable(reply) else reply
    return handler


@pytest.fixture(scope="module")
def api() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({
        "GET /v1/search/*": _auth({"results": [
            {"title": "Hit", "link": "https://hit.example", "description": " A hit. "}, {"title": "no link"}]}),
        "GET /v1/news/*": _auth({"entries": [
            {"title": "News", "link": "https://n.example", "source": {"title": "Wire"}, "published": "Mon"}]}),
        "GET /v1/scholar/*": _auth({"articles": [
            {"title": "Paper", "link": "https://p.example", "description": "About.", "cite": "Cited by 3",
             "author": {"authors": [{"name": "A. One"}, {"name": "B. Two"}]}}]}),
        "GET /v1/job/search/*": _auth({"jobs": [
            {"position": "Engineer", "employer": "ACME", "location": "Remote", "link": "https://j.example",
             "highlights": ["Python", "Agents"], "is_remote": True}]}),
        "POST /v1/request": _auth(lambda r: (200, "# Page\n" + r.json["url"], {"Content-Type": "text/markdown"})),
    }) as service:
        yield service


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, api: FakeHTTPService) -> None:
    monkeypatch.setenv("SERPLY_API_KEY", "serply-key")
    monkeypatch.setenv("SERPLY_BASE_URL", api.url)


def _last(api: FakeHTTPService, prefix: str) -> FakeRequestRecord:
    return [r for r in api.requests if r.path.startswith(prefix)][-1]


def test_web_search(api: FakeHTTPService) -> None:
    text = SerplyWebSearchTool(limit=5, proxy_location="GB", hl="EN", device_type="mobile").run(search_query="crew graph")
    assert text == "\nSearch results: Title: Hit\nLink: https://hit.example\nDescription: A hit.\n---\n"
    sent = _last(api, "/v1/search/")
    assert sent.path == "/v1/search/num=5&gl=GB&hl=en&q=crew+graph"
    assert sent.headers["x-proxy-location"] == "GB" and sent.headers["x-user-agent"] == "mobile"


def test_news_scholar_and_jobs(api: FakeHTTPService) -> None:
    assert "Source: Wire\nPublished: Mon" in SerplyNewsSearchTool().run(search_query="ai")
    assert _last(api, "/v1/news/").path == "/v1/news/q=ai"
    scholar = SerplyScholarSearchTool(hl="fr").run(search_query="graphs")
    assert "Cite: Cited by 3\nAuthors: A. One, B. Two" in scholar
    assert _last(api, "/v1/scholar/").path == "/v1/scholar/hl=fr&q=graphs"
    jobs = SerplyJobSearchTool().run(search_query="python")
    assert "Position: Engineer\nEmployer: ACME" in jobs and "Highest: Python, Agents" in jobs


def test_webpage_to_markdown(api: FakeHTTPService) -> None:
    assert SerplyWebpageToMarkdownTool().run(url="https://site.example") == "# Page\nhttps://site.example"
    assert api.requests_to("/v1/request")[-1].json == {"url": "https://site.example", "method": "GET",
                                                       "response_type": "markdown"}
    bad = SerplyWebpageToMarkdownTool().run(url="file:///etc/passwd")
    assert isinstance(bad, ToolFailure) and bad.code == "invalid_url"


def test_failures_and_rag_options(monkeypatch: pytest.MonkeyPatch) -> None:
    denied = SerplyWebSearchTool(api_key="no").run(search_query="x")
    assert isinstance(denied, ToolFailure) and denied.code == "http_401"
    with pytest.raises(ValueError, match="RAG options"):
        SerplyJobSearchTool(summarize=True)
    monkeypatch.delenv("SERPLY_API_KEY")
    assert "SERPLY_API_KEY" in SerplyNewsSearchTool().config_problems()[0]
