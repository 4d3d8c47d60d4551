"""ScrapflyScrapeWebsiteTool against a local stand-in speaking Scrapfly's /scrape API."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService, FakeRequestRecord
from crewgraph.toolkit import ScrapflyScrapeWebsiteTool
from crewgraph.tools import ToolFailure


def _scrape(request: FakeRequestRecord) -> Any:
    if request.query.get("key") != ["sf-key"]:
        return 401, {"message": "Invalid API key", "code": "ERR::AUTH"}
    if "blocked" in request.query["url"][0]:
        return 422, {"message": "The target blocked the request", "code": "ERR::ASP::SHIELD_PROTECTION_FAILED"}
    return {"result": {"content": f"# Page as {request.query['format'][0]}", "status_code": 200}, "config": {}}


@pytest.fixture(scope="module")
def api() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({"GET /scrape": _scrape}) as service:
        yield service


def test_scrape_with_config(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCRAPFLY_API_KEY", "sf-key")
    tool = ScrapflyScrapeWebsiteTool(base_url=api.url)
    assert tool.run(url="https://example.com", scrape_format="text",
                    scrape_config={"asp": True, "render_js": False, "country": "de"}) == "# Page as text"
    assert api.requests_to("/scrape")[-1].query == {"asp": ["true"], "render_js": ["false"], "country": ["de"],
                                                    "key": ["sf-key"], "url": ["https://example.com"],
                                                    "format": ["text"]}


def test_failures_and_ignoring_them(api: FakeHTTPService) -> None:
    tool = ScrapflyScrapeWebsiteTool(base_url=api.url, api_key="sf-key")
    blocked = tool.run(url="https://blocked.example")
    assert isinstance(blocked, ToolFailure) and "blocked the request" in blocked.message
    assert "failure ignored" in tool.run(url="https://blocked.example", ignore_scrape_failures=True)
    assert ScrapflyScrapeWebsiteTool(base_url=api.url, api_key="bad").run(url="https://x.example").code == "http_401"
