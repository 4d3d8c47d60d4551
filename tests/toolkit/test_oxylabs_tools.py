"""The Oxylabs tools against a local stand-in speaking the Web Scraper API's realtime /v1/queries."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService, FakeRequestRecord
from crewgraph.toolkit import (
    OxylabsAmazonProductScraperTool,
    OxylabsAmazonSearchScraperTool,
    OxylabsGoogleSearchScraperTool,
    OxylabsUniversalScraperTool,
)
from crewgraph.tools import ToolFailure

AUTH = "Basic " + base64.b64encode(b"user:pass").decode()


def _queries(request: FakeRequestRecord) -> Any:
    if request.headers.get("authorization") != AUTH:
        return 401, {"message": "Unauthorized"}
    body = request.json
    if body.get("url") == "https://down.example":
        return {"results": [{"content": "", "status_code": 503}]}
    content: Any = {"organic": [{"title": "Hit"}]} if body.get("parse") else f"<html>{body['source']}</html>"
    return {"results": [{"content": content, "status_code": 200, "url": body.get("url", "")}], "job": {"id": "1"}}


@pytest.fixture(scope="module")
def api() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({"POST /v1/queries": _queries}) as service:
        yield service


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, api: FakeHTTPService) -> None:
    monkeypatch.setenv("OXYLABS_USERNAME", "user")
    monkeypatch.setenv("OXYLABS_PASSWORD", "pass")
    monkeypatch.setenv("OXYLABS_BASE_URL", api.url)


def test_universal_scrape(api: FakeHTTPService) -> None:
    tool = OxylabsUniversalScraperTool(config={"render": "html", "geo_location": "Germany"})
    assert tool.run(url="https://example.com") == "<html>universal</html>"
    assert api.requests_to("/v1/queries")[-1].json == {"source": "universal", "url": "https://example.com",
                                                       "geo_location": "Germany", "render": "html"}


def test_google_and_amazon_sources(api: FakeHTTPService) -> None:
    parsed = OxylabsGoogleSearchScraperTool(config={"parse": True, "pages": 2}).run(query="crewgraph")
    assert json.loads(parsed) == {"organic": [{"title": "Hit"}]}
    assert api.requests_to("/v1/queries")[-1].json == {"source": "google_search", "query": "crewgraph", "parse": True,
                                                       "pages": 2}
    assert OxylabsAmazonProductScraperTool().run(query="B07FZ8S74R") == "<html>amazon_product</html>"
    assert OxylabsAmazonSearchScraperTool(config={"domain": "de"}).run(query="kettle") == "<html>amazon_search</html>"
    assert api.requests_to("/v1/queries")[-1].json["domain"] == "de"


def test_failures_and_credentials(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    down = OxylabsUniversalScraperTool().run(url="https://down.example")
    assert isinstance(down, ToolFailure) and down.code == "503" and down.retryable
    denied = OxylabsUniversalScraperTool(username="user", password="wrong").run(url="https://x.example")
    assert isinstance(denied, ToolFailure) and denied.code == "http_401"
    with pytest.raises(ValueError, match="Extra inputs"):
        OxylabsGoogleSearchScraperTool(config={"no_such": 1})
    monkeypatch.delenv("OXYLABS_PASSWORD")
    assert "OXYLABS_PASSWORD" in OxylabsUniversalScraperTool().config_problems()[0]
    assert OxylabsUniversalScraperTool().run(url="https://x.example").code == "missing_api_key"
