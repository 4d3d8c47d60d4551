"""ParallelSearchTool against a local stand-in speaking Parallel's /v1beta/search API."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from crewgraph.testing import FakeHTTPService
from crewgraph.toolkit import ParallelSearchTool
from crewgraph.tools import ToolFailure

REPLY = {"search_id": "s-1", "results": [{"url": "https://a.example", "title": "A", "excerpts": ["one", "two"]}]}


@pytest.fixture(scope="module")
def api() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({"POST /v1beta/search": lambda r: REPLY if r.headers.get("x-api-key") == "p-key"
                          else (401, {"error": {"message": "Invalid API key"}})}) as service:
        yield service


def test_search_body_and_json_result(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARALLEL_API_KEY", "p-key")
    monkeypatch.setenv("PARALLEL_BASE_URL", api.url)
    result = ParallelSearchTool().run(objective="Find agent frameworks", search_queries=["crewai", "langgraph"],
                                      max_results=3, source_policy={"include_domains": ["github.com"]})
    assert json.loads(result) == REPLY
    assert api.requests_to("/v1beta/search")[-1].json == {
        "processor": "base", "max_results": 3, "max_chars_per_result": 6000, "objective": "Find agent frameworks",
        "search_queries": ["crewai", "langgraph"], "source_policy": {"include_domains": ["github.com"]}}


def test_needs_an_objective_or_queries_and_valid_arguments(api: FakeHTTPService) -> None:
    tool = ParallelSearchTool(search_url=api.url + "/v1beta/search", api_key="p-key")
    assert tool.run().code == "missing_query"
    with pytest.raises(ValueError, match="processor"):
        tool.run(objective="x", processor="ultra")
    with pytest.raises(ValueError, match="search_queries"):
        tool.run(search_queries=["q"] * 6)
    denied = ParallelSearchTool(search_url=api.url + "/v1beta/search", api_key="no").run(objective="x")
    assert isinstance(denied, ToolFailure) and denied.code == "http_401"
