"""WeaviateVectorSearchTool against a local stand-in of Weaviate's REST schema and GraphQL endpoints."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService
from crewgraph.testing.fake_http import FakeRequestRecord
from crewgraph.toolkit import WeaviateVectorSearchTool
from crewgraph.tools import ToolFailure

DOCS = [{"title": "Refunds", "body": "Refunds take 14 days."}, {"title": "Deploys", "body": "We deploy on Tuesdays."}]
_GET = re.compile(r'\{ Get \{ (\w+)\(hybrid: \{query: ("(?:[^"\\]|\\.)*"), alpha: ([0-9.]+)\}, limit: (\d+)\) \{ ([\w ]+) \} \} \}')


def _auth(request: FakeRequestRecord) -> bool:
    return request.headers.get("authorization") == "Bearer wv-key"


def _schema(request: FakeRequestRecord) -> Any:
    if not _auth(request):
        return 401, {"error": [{"message": "anonymous access not enabled"}]}
    if request.params["name"] != "Docs":
        return 404, {"error": [{"message": f"class {request.params['name']} not found"}]}
    return {"class": "Docs", "properties": [
        {"name": "title", "dataType": ["text"]}, {"name": "body", "dataType": ["text"]},
        {"name": "author", "dataType": ["Person"]}]}  # a cross-reference: not selected


def _graphql(request: FakeRequestRecord) -> Any:
    match = _GET.fullmatch(request.json["query"])
    if match is None:
        return {"errors": [{"message": f"syntax error in {request.json['query']!r}"}]}
    cls, query, _alpha, limit, fields = match.groups()
    words = set(json.loads(query).lower().split())
    hits = [{f: d[f] for f in fields.split()} for d in DOCS if words & set(d["body"].lower().rstrip(".").split())]
    return {"data": {"Get": {cls: hits[: int(limit)]}}}


@pytest.fixture(scope="module")
def weaviate() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({"GET /v1/schema/{name}": _schema, "POST /v1/graphql": _graphql}) as service:
        yield service


def test_hybrid_search_returns_crewais_json(weaviate: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    tool = WeaviateVectorSearchTool(collection_name="Docs", weaviate_cluster_url=weaviate.url, weaviate_api_key="wv-key")
    out = tool.run(query='refunds "quoted"')
    assert out == json.dumps({"title": "Refunds", "body": "Refunds take 14 days."}, indent=2)
    sent = weaviate.requests_to("/v1/graphql")[-1]
    assert sent.headers["x-openai-api-key"] == "sk-test" and "alpha: 0.75" in sent.json["query"]
    assert "author" not in sent.json["query"] and tool.config_problems() == []
    tool.run(query="deploy")
    assert len(weaviate.requests_to("/v1/schema/Docs")) == 1  # the schema is read once
    assert tool.run(query="nothing matches") == ""


def test_failures(weaviate: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    missing = WeaviateVectorSearchTool(collection_name="Other", weaviate_cluster_url=weaviate.url, weaviate_api_key="wv-key")
    result = missing.run(query="x")
    assert isinstance(result, ToolFailure) and "class Other not found" in result.message
    assert missing.config_problems() == ["WeaviateVectorSearchTool needs OPENAI_API_KEY for the collection's OpenAI vectorizer"]
    denied = WeaviateVectorSearchTool(collection_name="Docs", weaviate_cluster_url=weaviate.url, weaviate_api_key="bad")
    assert isinstance(denied.run(query="x"), ToolFailure)
    bad_name = WeaviateVectorSearchTool(collection_name="docs; drop", weaviate_cluster_url=weaviate.url, weaviate_api_key="k")
    assert isinstance(bad_name.run(query="x"), ToolFailure)
    with pytest.raises(ValueError, match="does not create one"):
        WeaviateVectorSearchTool(collection_name="Docs", weaviate_cluster_url="x", weaviate_api_key="k", vectorizer=object())
