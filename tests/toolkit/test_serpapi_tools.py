"""The SerpApi tools against a local stand-in speaking SerpApi's /search API (api_key in the query)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService, FakeRequestRecord
from crewgraph.toolkit import SerpApiGoogleSearchTool, SerpApiGoogleShoppingTool
from crewgraph.tools import ToolFailure


def _search(request: FakeRequestRecord) -> Any:
    if request.query.get("api_key") != ["serp-key"]:
        return 401, {"error": "Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"}
    engine = request.query["engine"][0]
    common = {"search_metadata": {"id": "1"}, "search_parameters": {"q": "x"}, "serpapi_pagination": {},
              "pagination": {"next": "n"}}
    if engine == "google_shopping":
        return {**common, "filters": [1], "shopping_results": [{"title": "Shoe", "price": "$10",
                                                                 "serpapi_product_api": "u"}]}
    return {**common, "organic_results": [{"position": 1, "title": "Hit", "link": "https://hit.example",
                                           "displayed_link": "hit.example", "next_page_token": "t"}]}


@pytest.fixture(scope="module")
def api() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({"GET /search": _search}) as service:
        yield service


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, api: FakeHTTPService) -> None:
    monkeypatch.setenv("SERPAPI_API_KEY", "serp-key")
    monkeypatch.setenv("SERPAPI_BASE_URL", api.url)


def test_google_search_omits_bookkeeping(api: FakeHTTPService) -> None:
    result = SerpApiGoogleSearchTool().run(search_query="crewgraph", location="Austin, Texas")
    assert api.requests[-1].query == {"engine": ["google"], "q": ["crewgraph"], "output": ["json"],
                                      "api_key": ["serp-key"], "location": ["Austin, Texas"]}
    assert result == {"organic_results": [{"position": 1, "title": "Hit", "link": "https://hit.example"}]}


def test_google_shopping(api: FakeHTTPService) -> None:
    result = SerpApiGoogleShoppingTool().run(search_query="shoes")
    assert api.requests[-1].query["engine"] == ["google_shopping"] and "location" not in api.requests[-1].query
    assert result == {"shopping_results": [{"title": "Shoe", "price": "$10"}]}


def test_bad_and_missing_key(monkeypatch: pytest.MonkeyPatch) -> None:
    denied = SerpApiGoogleSearchTool(api_key="bad").run(search_query="x")
    assert isinstance(denied, ToolFailure) and "Invalid API key" in denied.message
    monkeypatch.delenv("SERPAPI_API_KEY")
    assert "SERPAPI_API_KEY" in SerpApiGoogleShoppingTool().config_problems()[0]
