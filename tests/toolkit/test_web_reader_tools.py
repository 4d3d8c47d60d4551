"""Jina Reader, Spider and Serper's scrape API against local stand-ins speaking their APIs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService, FakeRequestRecord
from crewgraph.toolkit import JinaScrapeWebsiteTool, SerperScrapeWebsiteTool, SpiderTool
from crewgraph.tools import ToolFailure


def _spider(request: FakeRequestRecord) -> Any:
    if request.headers.get("authorization") != "Bearer sp-key":
        return 401, {"error": "Unauthorized"}
    return [{"content": "# Page\ntext", "url": request.json["url"], "status": 200, "error": None, "costs": {}}]


@pytest.fixture(scope="module")
def api() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({
        "GET /jina/*": lambda r: (200, f"Title: x\n\nMarkdown of {r.path[len('/jina/'):]}", {"Content-Type": "text/plain"}),
        "POST /spider/scrape": _spider,
        "POST /spider/crawl": _spider,
        "POST /scrape": lambda r: {"text": "Readable text", "markdown": "# Readable", "metadata": {}}
        if r.headers.get("x-api-key") == "serper-key" else (403, {"message": "Unauthorized."}),
    }) as service:
        yield service


def test_jina_reader(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JINA_API_KEY", raising=False)
    tool = JinaScrapeWebsiteTool(base_url=api.url + "/jina", custom_headers={"X-Return-Format": "markdown"})
    assert tool.run(website_url="https://example.com/a") == "Title: x\n\nMarkdown of https://example.com/a"
    sent = [r for r in api.requests if r.path.startswith("/jina/")][-1]
    assert sent.headers["x-return-format"] == "markdown" and "authorization" not in sent.headers
    monkeypatch.setenv("JINA_API_KEY", "jina-key")
    fixed = JinaScrapeWebsiteTool(base_url=api.url + "/jina", website_url="https://example.com/b")
    assert "website_url" not in fixed.to_spec().parameters.get("properties", {})
    assert fixed.run().endswith("https://example.com/b")
    assert [r for r in api.requests if r.path.startswith("/jina/")][-1].headers["authorization"] == "Bearer jina-key"
    assert JinaScrapeWebsiteTool().config_problems() == []  # the Reader works without a key
    crewai_style = JinaScrapeWebsiteTool(base_url=api.url + "/jina", headers={"X-With-Links-Summary": "true"})
    crewai_style.run(website_url="https://example.com/c")
    sent = [r for r in api.requests if r.path.startswith("/jina/")][-1].headers
    assert sent["x-with-links-summary"] == "true" and sent["authorization"] == "Bearer jina-key"


def test_spider_scrape_and_crawl(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPIDER_API_KEY", "sp-key")
    monkeypatch.setenv("SPIDER_BASE_URL", api.url + "/spider")
    pages = SpiderTool().run(website_url="https://example.com")
    assert pages[0]["content"] == "# Page\ntext"
    assert api.requests_to("/spider/scrape")[-1].json == {"url": "https://example.com", "request": "smart",
                                                          "filter_output_svg": True, "return_format": "markdown"}
    SpiderTool(custom_params={"limit": 2, "return_format": "text"}).run(website_url="https://example.com", mode="crawl")
    assert api.requests_to("/spider/crawl")[-1].json["limit"] == 2
    assert api.requests_to("/spider/crawl")[-1].json["return_format"] == "text"
    denied = SpiderTool(api_key="bad").run(website_url="https://example.com")
    assert isinstance(denied, ToolFailure) and denied.code == "http_401"
    assert SpiderTool().run(website_url="javascript:alert(1)").code == "invalid_url"


def test_serper_scrape(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERPER_SCRAPE_BASE_URL", api.url + "/scrape")
    tool = SerperScrapeWebsiteTool(api_key="serper-key")
    assert tool.run(url="https://example.com", include_markdown=False) == "Readable text"
    assert api.requests_to("/scrape")[-1].json == {"url": "https://example.com", "includeMarkdown": False}
    monkeypatch.delenv("SERPER_API_KEY", raising=False)
    assert "SERPER_API_KEY" in SerperScrapeWebsiteTool().config_problems()[0]
