"""MongoDBVectorSearchTool: real pymongo over a real socket to a wire-protocol fake of Atlas Vector Search.

No mongod can be had offline (and ``$vectorSearch`` exists only on Atlas), so
this is the contract test the issue allows: the requests the tool sends and
the way it reads the replies, against Atlas's documented semantics.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from crewgraph.rag.embeddings.onnx_minilm import default_embedder
from crewgraph.toolkit import MongoDBVectorSearchConfig, MongoDBVectorSearchTool
from crewgraph.tools import ToolFailure

if TYPE_CHECKING:
    from _fake_mongod import FakeMongod


@pytest.fixture(autouse=True)
def _pymongo_installed() -> None:
    """Skips at setup rather than at import (function scope, so the module is not made one xdist group), so collecting the suite does not import pymongo."""
    pytest.importorskip("pymongo", reason="pymongo is not installed (pip install 'crewgraph[tools]')")


FACTS = [
    ("The payment service retries failed charges three times.", {"team": "payments"}),
    ("The cafeteria serves vegetarian lasagna every Wednesday.", {"team": "facilities"}),
    ("Nightly backups are copied to cold storage in another region.", {"team": "ops"}),
]


@pytest.fixture(scope="module")
def mongod() -> Iterator[FakeMongod]:
    pytest.importorskip("pymongo", reason="pymongo is not installed (pip install 'crewgraph[tools]')")
    from _fake_mongod import FakeMongod  # imports bson: not at collection

    with FakeMongod() as server:
        yield server


def _tool(mongod: FakeMongod, **kw: object) -> MongoDBVectorSearchTool:
    return MongoDBVectorSearchTool(connection_string=mongod.uri, database_name="kb", collection_name="facts",
                                   embedder=default_embedder(), dimensions=384, timeout=5, **kw)  # type: ignore[arg-type]


def test_index_insert_and_search(mongod: FakeMongod) -> None:
    tool = _tool(mongod)
    tool.create_vector_search_index(auto_index_timeout=5, filter_fields=["team"])
    ids = tool.add_texts([t for t, _ in FACTS], metadatas=[m for _, m in FACTS])
    assert len(ids) == 3 and len(mongod.collections[("kb", "facts")]) == 3
    created = next(c for c in mongod.commands if "createSearchIndexes" in c)
    assert created["indexes"][0]["type"] == "vectorSearch"
    assert created["indexes"][0]["definition"]["fields"][0] == {"type": "vector", "path": "embedding",
                                                                 "numDimensions": 384, "similarity": "cosine"}
    results = tool.run(query="how often is a failed payment retried?")
    assert results[0]["text"].startswith("The payment service") and results[0]["team"] == "payments"
    assert "embedding" not in results[0] and 0.5 < results[0]["score"] <= 1.0
    assert ast.literal_eval(tool.format_output_for_agent(results))[0]["_id"] == ids[0]
    stages = next(c for c in reversed(mongod.commands) if "aggregate" in c)["pipeline"]
    assert stages[0]["$vectorSearch"]["numCandidates"] == 40 and stages[0]["$vectorSearch"]["limit"] == 4
    tool.close()


def test_query_config_filters_and_post_pipeline(mongod: FakeMongod) -> None:
    cfg = MongoDBVectorSearchConfig(limit=2, pre_filter={"team": {"$in": ["ops", "facilities"]}},
                                    post_filter_pipeline=[{"$limit": 1}], include_embeddings=True)
    tool = _tool(mongod, query_config=cfg)
    results = tool.run(query="where are backups kept?")
    assert len(results) == 1 and results[0]["team"] == "ops" and len(results[0]["embedding"]) == 384
    assert tool.pipeline([0.0])[0]["$vectorSearch"]["filter"] == {"team": {"$in": ["ops", "facilities"]}}


def test_unreachable_server_is_a_retryable_failure() -> None:
    tool = MongoDBVectorSearchTool(connection_string="mongodb://127.0.0.1:9/?directConnection=true",
                                   database_name="kb", collection_name="c", embedder=default_embedder(), timeout=0.5)
    result = tool.run(query="x")
    assert isinstance(result, ToolFailure) and result.code == "mongodb_error" and result.retryable


def test_default_openai_embedding_needs_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    tool = MongoDBVectorSearchTool(connection_string="mongodb://x", database_name="d", collection_name="c")
    assert tool.config_problems() == [
        "MongoDBVectorSearchTool embeds with OpenAI by default: set OPENAI_API_KEY or pass embedder=..."]
    assert "connection_string" not in tool.model_dump()
