"""QdrantVectorSearchTool on qdrant-client's embedded engine (a real Qdrant store on disk or in memory)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crewgraph.rag.embeddings.onnx_minilm import default_embedder
from crewgraph.testing import OpenAICompatServer, embedding_for
from crewgraph.toolkit import QdrantVectorSearchTool
from crewgraph.toolkit.qdrant_tool import QdrantConfig
from crewgraph.tools import ToolFailure


@pytest.fixture(autouse=True)
def _qdrant_installed() -> None:
    """Skips at setup rather than at import (function scope, so the module is not made one xdist group), so collecting the suite does not import qdrant_client."""
    pytest.importorskip("qdrant_client", reason="qdrant-client is not installed (crewgraph[qdrant])")


DOCS = [
    ("The payment service retries a failed charge three times.", {"team": "billing", "id": 1}),
    ("Grace cooks vegetarian lasagna on Wednesdays.", {"team": "kitchen", "id": 2}),
    ("Nightly database backups run at 2am.", {"team": "ops", "id": 3}),
]


def _embed(text: str) -> list[float]:
    return [float(x) for x in default_embedder()([text])[0]]


def _fill(client: object, name: str, embed: object = _embed) -> None:
    from qdrant_client.http import models

    first = embed(DOCS[0][0])  # type: ignore[operator]
    client.create_collection(name, vectors_config=models.VectorParams(size=len(first), distance=models.Distance.COSINE))  # type: ignore[attr-defined]
    client.upsert(name, points=[  # type: ignore[attr-defined]
        models.PointStruct(id=i, vector=embed(text), payload={"text": text, "metadata": meta, "team": meta["team"]})  # type: ignore[operator]
        for i, (text, meta) in enumerate(DOCS)])


def test_search_on_an_embedded_store_with_a_custom_embedding(tmp_path: Path) -> None:
    import qdrant_client

    store = tmp_path / "qdrant"
    writer = qdrant_client.QdrantClient(path=str(store))
    _fill(writer, "notes")
    writer.close()
    tool = QdrantVectorSearchTool(
        qdrant_config=QdrantConfig(qdrant_url=str(store), collection_name="notes", limit=1, score_threshold=0.1),
        custom_embedding_fn=_embed)
    hits = json.loads(tool.run(query="who makes pasta?"))
    assert len(hits) == 1 and hits[0]["context"].startswith("Grace") and hits[0]["metadata"] == {"team": "kitchen", "id": 2}
    assert 0.1 < hits[0]["distance"] <= 1.0
    filtered = json.loads(tool.run(query="who makes pasta?", filter_by="team", filter_value="ops"))
    assert [h["metadata"]["id"] for h in filtered] == [3]
    half = tool.run(query="x", filter_by="team")
    assert isinstance(half, ToolFailure) and half.code == "invalid_filter"
    assert tool.config_problems() == []
    assert set(tool.to_spec().parameters["properties"]) == {"query", "filter_by", "filter_value"}


def test_config_filter_client_and_import_path(tmp_path: Path) -> None:
    import qdrant_client
    from qdrant_client.http import models

    client = qdrant_client.QdrantClient(location=":memory:")
    _fill(client, "notes")
    base = models.Filter(must_not=[models.FieldCondition(key="team", match=models.MatchValue(value="kitchen"))])
    tool = QdrantVectorSearchTool(
        qdrant_config=QdrantConfig(qdrant_url=":memory:", collection_name="notes", limit=3, score_threshold=-1.0, filter=base),
        client=client, custom_embedding_fn=f"{__name__}._embed")
    hits = json.loads(tool.run(query="food"))
    assert {h["metadata"]["team"] for h in hits} == {"billing", "ops"}
    assert base.must is None  # the configured filter is copied, never changed
    missing = QdrantVectorSearchTool(qdrant_config=QdrantConfig(qdrant_url=":memory:", collection_name="nope"),
                                     client=client, custom_embedding_fn=_embed).run(query="x")
    assert isinstance(missing, ToolFailure) and missing.code == "search_failed" and "nope" in missing.message


def test_default_openai_embedding(monkeypatch: pytest.MonkeyPatch) -> None:
    import qdrant_client

    client = qdrant_client.QdrantClient(location=":memory:")
    _fill(client, "notes", embed=embedding_for)  # the server's deterministic embedding
    with OpenAICompatServer() as server:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        tool = QdrantVectorSearchTool(
            qdrant_config=QdrantConfig(qdrant_url="http://127.0.0.1:1", collection_name="notes", limit=1, score_threshold=0.99),
            client=client)
        hits = json.loads(tool.run(query=DOCS[2][0]))
        assert [h["metadata"]["id"] for h in hits] == [3]
        request = server.requests[-1]
        assert request["model"] == "text-embedding-3-large" and request["input"] == [DOCS[2][0]]
    monkeypatch.delenv("OPENAI_API_KEY")
    assert "set OPENAI_API_KEY" in tool.config_problems()[0]
