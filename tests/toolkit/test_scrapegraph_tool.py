"""ScrapegraphScrapeTool against a local stand-in speaking ScrapeGraphAI's SmartScraper API."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService, FakeRequestRecord
from crewgraph.toolkit import ScrapegraphScrapeTool, ScrapegraphScrapeToolSchema
from crewgraph.tools import ToolFailure


def _smart(request: FakeRequestRecord) -> Any:
    if request.headers.get("sgai-apikey") != "sg-key":
        return 401, {"detail": "Invalid API key"}
    body = request.json
    if "ratelimited" in body["website_url"]:
        return {"error": {"message": "Rate limit exceeded"}}
    return {"request_id": "r-1", "status": "completed", "website_url": body["website_url"],
            "user_prompt": body["user_prompt"], "result": {"title": "Example"}, "error": ""}


@pytest.fixture(scope="module")
def api() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({"POST /v1/smartscraper": _smart}) as service:
        yield service


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, api: FakeHTTPService) -> None:
    monkeypatch.setenv("SCRAPEGRAPH_API_KEY", "sg-key")
    monkeypatch.setenv("SCRAPEGRAPH_BASE_URL", api.url)


def test_smartscraper_request_and_reply(api: FakeHTTPService) -> None:
    reply = ScrapegraphScrapeTool().run(website_url="https://example.com", user_prompt="Get the title")
    assert reply["result"] == {"title": "Example"}
    assert api.requests_to("/v1/smartscraper")[-1].json == {"website_url": "https://example.com",
                                                            "user_prompt": "Get the title"}
    fixed = ScrapegraphScrapeTool(website_url="https://example.com", user_prompt="Prices only")
    fixed.run()
    assert api.requests_to("/v1/smartscraper")[-1].json["user_prompt"] == "Prices only"
    ScrapegraphScrapeTool().run(website_url="https://example.com")
    assert api.requests_to("/v1/smartscraper")[-1].json["user_prompt"] == "Extract the main content of the webpage"


def test_errors_and_bad_urls() -> None:
    limited = ScrapegraphScrapeTool().run(website_url="https://ratelimited.example")
    assert isinstance(limited, ToolFailure) and limited.retryable and "Rate limit" in limited.message
    with pytest.raises(ValueError, match="Invalid URL"):
        ScrapegraphScrapeTool().run(website_url="not a url")
    with pytest.raises(ValueError, match="Invalid URL"):
        ScrapegraphScrapeTool(website_url="nope")
    assert "user_prompt" in ScrapegraphScrapeToolSchema.model_fields
