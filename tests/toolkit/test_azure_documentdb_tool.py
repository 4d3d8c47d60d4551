"""AzureDocumentDBVectorSearchTool: real pymongo over a real socket to a wire-protocol fake of DocumentDB's search.

No Azure DocumentDB (nor any MongoDB server) can be had offline, so, as for
MongoDBVectorSearchTool, the tool is contract-tested against the shared
wire-protocol fake (``_fake_mongod``), which answers DocumentDB's documented
``createIndexes`` with ``cosmosSearchOptions`` and ``$search``/``cosmosSearch``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from crewgraph.rag.embeddings.onnx_minilm import default_embedder
from crewgraph.toolkit import AzureDocumentDBVectorSearchConfig, AzureDocumentDBVectorSearchTool
from crewgraph.tools import ToolFailure

if TYPE_CHECKING:
    from _fake_mongod import FakeMongod


@pytest.fixture(autouse=True)
def _pymongo_installed() -> None:
    """Skips at setup rather than at import (function scope, so the module is not made one xdist group), so collecting the suite does not import pymongo."""
    pytest.importorskip("pymongo", reason="pymongo is not installed (pip install 'crewgraph[tools]')")


FACTS = [
    ("Invoices are archived for seven years in the finance vault.", {"team": "finance"}),
    ("The staging cluster is rebuilt from scratch every Sunday night.", {"team": "ops"}),
    ("New hires get their laptops on their first morning.", {"team": "it"}),
]


@pytest.fixture(scope="module")
def mongod() -> Iterator[FakeMongod]:
    pytest.importorskip("pymongo", reason="pymongo is not installed (pip install 'crewgraph[tools]')")
    from _fake_mongod import FakeMongod  # imports bson: not at collection

    with FakeMongod() as server:
        yield server


@pytest.fixture(scope="module")
def filled(mongod: FakeMongod) -> AzureDocumentDBVectorSearchTool:
    tool = AzureDocumentDBVectorSearchTool(connection_string=mongod.uri, database_name="kb", collection_name="docs",
                                           embedder=default_embedder(), dimensions=384, connection_timeout_ms=5000)
    reply = tool.create_vector_index(kind="vector-hnsw", m=16, efConstruction=64)
    assert reply["ok"] == 1.0
    tool.add_texts([t for t, _ in FACTS], metadatas=[m for _, m in FACTS], ids=["f1", "f2", "f3"])
    return tool


def test_index_and_search(mongod: FakeMongod, filled: AzureDocumentDBVectorSearchTool) -> None:
    created = next(c for c in mongod.commands if "createIndexes" in c)["indexes"][0]
    assert created == {"name": "vector_index", "key": {"embedding": "cosmosSearch"},
                       "cosmosSearchOptions": {"kind": "vector-hnsw", "similarity": "COS", "dimensions": 384,
                                               "m": 16, "efConstruction": 64}}
    results = filled.run(query="how long do we keep invoices?")
    assert results[0]["_id"] == "f1" and results[0]["team"] == "finance" and "embedding" not in results[0]
    assert 0.3 < results[0]["score"] <= 1.0 and results[0]["score"] >= results[1]["score"]
    stages = next(c for c in reversed(mongod.commands) if "aggregate" in c)["pipeline"]
    assert stages[0]["$search"]["cosmosSearch"]["k"] == 4 and stages[0]["$search"]["returnStoredSource"] is True
    assert stages[1] == {"$project": {"similarityScore": {"$meta": "searchScore"}, "document": "$$ROOT"}}


def test_query_config(mongod: FakeMongod, filled: AzureDocumentDBVectorSearchTool) -> None:
    cfg = AzureDocumentDBVectorSearchConfig(limit=1, pre_filter={"team": {"$in": ["ops", "it"]}}, ef_search=40,
                                            include_embeddings=True)
    tool = filled.model_copy(update={"query_config": cfg})
    results = tool.run(query="when is staging rebuilt?")
    assert [r["_id"] for r in results] == ["f2"] and len(results[0]["embedding"]) == 384
    search = next(c for c in reversed(mongod.commands) if "aggregate" in c)["pipeline"][0]["$search"]["cosmosSearch"]
    assert search["efSearch"] == 40 and search["filter"] == {"team": {"$in": ["ops", "it"]}}
    with pytest.raises(ValueError, match="extra"):
        AzureDocumentDBVectorSearchConfig(num_candidates=3)  # type: ignore[call-arg]


def test_a_missing_index_is_a_failure(mongod: FakeMongod) -> None:
    tool = AzureDocumentDBVectorSearchTool(connection_string=mongod.uri, database_name="kb", collection_name="empty",
                                           embedder=default_embedder(), connection_timeout_ms=5000)
    result = tool.run(query="anything")
    assert isinstance(result, ToolFailure) and result.code == "documentdb_error" and "no vector index" in result.message


def test_connection_string_from_the_environment(mongod: FakeMongod, filled: AzureDocumentDBVectorSearchTool,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_DOCUMENTDB_CONNECTION_STRING", mongod.uri)
    tool = AzureDocumentDBVectorSearchTool(database_name="kb", collection_name="docs", embedder=default_embedder())
    assert tool.config_problems() == [] and tool.run(query="laptops for new hires")[0]["_id"] == "f3"


def test_missing_configuration_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AZURE_DOCUMENTDB_CONNECTION_STRING", "OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    tool = AzureDocumentDBVectorSearchTool(database_name="kb", collection_name="docs")
    assert tool.config_problems() == [
        "AzureDocumentDBVectorSearchTool needs a connection string: set AZURE_DOCUMENTDB_CONNECTION_STRING or pass "
        "connection_string=...",
        "AzureDocumentDBVectorSearchTool embeds with OpenAI by default: set OPENAI_API_KEY (or AZURE_OPENAI_ENDPOINT "
        "and AZURE_OPENAI_API_KEY) or pass embedder=..."]
    failed = tool.run(query="x")
    assert isinstance(failed, ToolFailure) and "AZURE_DOCUMENTDB_CONNECTION_STRING" in failed.message
    with pytest.raises(ValueError, match="use_azure_identity=True\\) is not supported"):
        AzureDocumentDBVectorSearchTool(database_name="kb", collection_name="docs", use_azure_identity=True)


def test_azure_openai_is_the_default_embedder_when_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://example.openai.azure.com")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "k")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    tool = AzureDocumentDBVectorSearchTool(connection_string="mongodb://x", database_name="kb", collection_name="d")
    assert tool.config_problems() == []
    assert type(tool._embedder()).__name__ == "OpenAICompatibleEmbedder"
