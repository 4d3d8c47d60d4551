"""HyperbrowserLoadTool against a local stand-in speaking Hyperbrowser's scrape and crawl job API."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService, FakeRequestRecord
from crewgraph.toolkit import HyperbrowserLoadTool
from crewgraph.tools import ToolFailure

CHECKS: list[str] = []


def _auth(reply: Any) -> Any:
    def handler(request: FakeRequestRecord) -> Any:
        if request.headers.get("x-api-key") != "hb-key":
            return 401, {"message": "Invalid API key"}
        return reply(request) if callable(reply) else reply
    return handler


def _scrape_status(request: FakeRequestRecord) -> Any:
    CHECKS.append(request.path)
    if len(CHECKS) < 2:
        return {"jobId": "j1", "status": "running"}
    return {"jobId": "j1", "status": "completed", "data": {"markdown": "# Scraped", "metadata": {}}}


@pytest.fixture(scope="module")
def api() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({
        "POST /api/scrape": _auth({"jobId": "j1"}),
        "GET /api/scrape/j1": _auth(_scrape_status),
        "POST /api/crawl": _auth({"jobId": "c1"}),
        "GET /api/crawl/c1": _auth({"jobId": "c1", "status": "completed", "data": [
            {"url": "https://site.example/", "status": "completed", "markdown": "Home"},
            {"url": "https://site.example/a", "status": "completed", "html": "<p>A</p>"},
            {"url": "https://site.example/b", "status": "failed"}]}),
    }) as service:
        yield service


def test_scrape_polls_the_job(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYPERBROWSER_API_KEY", "hb-key")
    CHECKS.clear()
    tool = HyperbrowserLoadTool(base_url=api.url, poll_interval=0.01)
    params = {"scrape_options": {"formats": ["markdown"], "only_main_content": True}, "session_options": {"use_proxy": True}}
    assert tool.run(url="https://example.com", operation="scrape", params=params) == "# Scraped"
    assert api.requests_to("/api/scrape")[-1].json == {
        "url": "https://example.com", "scrapeOptions": {"formats": ["markdown"], "onlyMainContent": True},
        "sessionOptions": {"useProxy": True}}
    assert len(CHECKS) == 2


def test_crawl_joins_the_pages(api: FakeHTTPService) -> None:
    text = HyperbrowserLoadTool(base_url=api.url, api_key="hb-key").run(url="https://site.example", operation="crawl",
                                                                         params={"max_pages": 3})
    assert "Url: https://site.example/\nContent:\nHome" in text and "Content:\n<p>A</p>" in text
    assert "/b" not in text and api.requests_to("/api/crawl")[-1].json == {"url": "https://site.example", "maxPages": 3}


def test_bad_formats_and_key(api: FakeHTTPService) -> None:
    tool = HyperbrowserLoadTool(base_url=api.url, api_key="hb-key")
    bad = tool.run(url="https://x.example", operation="scrape", params={"scrape_options": {"formats": ["pdf"]}})
    assert isinstance(bad, ToolFailure) and bad.code == "invalid_params"
    denied = HyperbrowserLoadTool(base_url=api.url, api_key="no").run(url="https://x.example", operation="scrape", params=None)
    assert isinstance(denied, ToolFailure) and denied.code == "http_401"
