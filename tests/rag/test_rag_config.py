"""CrewAI's RAG configuration: QdrantConfig (default, embedded), ChromaDBConfig (chromadb installed), the
process-wide set/get/clear, the provider spec types, and the RAG tools embedding with the set config."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from crewgraph.rag.config.utils import (
    clear_rag_config,
    get_rag_client,
    get_rag_config,
    set_rag_config,
)
from crewgraph.rag.core.base_client import BaseClient
from crewgraph.rag.core.base_embeddings_callable import EmbeddingFunction
from crewgraph.rag.embeddings.factory import build_embedder
from crewgraph.rag.embeddings.providers.custom.types import CustomProviderSpec
from crewgraph.rag.embeddings.providers.onnx.types import ONNXProviderSpec
from crewgraph.rag.embeddings.providers.openclip.types import OpenCLIPProviderSpec
from crewgraph.rag.qdrant.config import QdrantConfig
from crewgraph.testing import FakeEmbedder


@pytest.fixture(autouse=True)
def _qdrant_installed() -> None:
    """Skips at setup rather than at import (function scope, so the module is not made one xdist group), so collecting the suite does not import qdrant_client."""
    pytest.importorskip("qdrant_client", reason="qdrant-client is not installed (crewgraph[qdrant])")


DOCS = [
    {"content": "The payment service retries a failed charge three times.", "metadata": {"team": "billing"}},
    {"doc_id": "lasagna", "content": "Grace cooks vegetarian lasagna on Wednesdays.", "metadata": {"team": "kitchen"}},
    {"content": "Nightly database backups run at 2am.", "metadata": {"team": "ops"}},
]


@pytest.fixture(autouse=True)
def _fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(tmp_path / "store"))
    clear_rag_config()
    yield
    clear_rag_config()


def _exercise(client: BaseClient) -> None:
    client.create_collection(collection_name="notes")
    with pytest.raises(ValueError, match="already exists"):
        client.create_collection(collection_name="notes")
    client.add_documents(collection_name="notes", documents=DOCS)
    client.add_documents(collection_name="notes", documents=[DOCS[1]])  # same doc_id: updated, not doubled
    hits = client.search(collection_name="notes", query="who makes pasta?", limit=2, score_threshold=-1.0)
    assert hits[0]["id"] == "lasagna" and hits[0]["metadata"] == {"team": "kitchen"} and len(hits) == 2
    assert hits[0]["score"] >= hits[1]["score"]
    only_ops = client.search(collection_name="notes", query="who makes pasta?", metadata_filter={"team": "ops"},
                             score_threshold=-1.0)
    assert [h["content"] for h in only_ops] == [DOCS[2]["content"]]
    assert asyncio.run(client.asearch(collection_name="notes", query="backups", limit=1, score_threshold=-1.0))[0][
        "metadata"] == {"team": "ops"}
    with pytest.raises(TypeError):
        client.add_documents(collection_name="notes", documents=[{"text": "no content key"}])
    client.delete_collection(collection_name="notes")
    with pytest.raises(ValueError, match="does not exist"):
        client.search(collection_name="notes", query="x")


def test_default_is_embedded_qdrant(tmp_path: Path) -> None:
    config = get_rag_config()
    assert isinstance(config, QdrantConfig) and config.provider == "qdrant"
    assert config.options == {"path": str(tmp_path / "store" / "rag" / "qdrant")}
    assert (config.limit, config.score_threshold, config.batch_size) == (5, 0.6, 100)
    client = get_rag_client()
    assert isinstance(client, BaseClient) and get_rag_client() is client
    _exercise(client)
    assert (tmp_path / "store" / "rag" / "qdrant").is_dir()  # on disk, embedded


def test_set_and_clear(tmp_path: Path) -> None:
    embedder = FakeEmbedder(dimension=16)
    config = QdrantConfig(options={"location": ":memory:"}, embedding_function=embedder.embed_one, limit=2)
    set_rag_config(config)
    assert get_rag_config() is config
    client = get_rag_client()
    client.create_collection(collection_name="c")
    client.add_documents(collection_name="c", documents=DOCS)
    assert len(client.search(collection_name="c", query="x", score_threshold=-1.0)) == 2  # the config's limit
    clear_rag_config()
    assert get_rag_config() is not config and get_rag_client() is not client
    with pytest.raises(TypeError, match="QdrantConfig or a ChromaDBConfig"):
        set_rag_config({"provider": "qdrant"})
    with pytest.raises(ValueError, match="not qdrant-client connection arguments"):
        QdrantConfig(options={"pth": "x"})


def test_chromadb_config(tmp_path: Path) -> None:
    chromadb = pytest.importorskip("chromadb", reason="chromadb is not installed (crewgraph[chromadb])")
    from crewgraph.rag.chromadb.config import ChromaDBConfig

    config = ChromaDBConfig()
    assert config.provider == "chromadb" and config.settings.persist_directory == str(tmp_path / "store" / "rag" / "chromadb")
    set_rag_config(ChromaDBConfig(settings=chromadb.config.Settings(
        persist_directory=str(tmp_path / "chroma"), is_persistent=True, allow_reset=True, anonymized_telemetry=False)))
    client = get_rag_client()
    assert type(client).__name__ == "ChromaDBClient"
    _exercise(client)
    assert (tmp_path / "chroma").is_dir()


def test_provider_specs_are_accepted_embedder_configs() -> None:
    spec: ONNXProviderSpec = {"provider": "onnx"}
    assert len(build_embedder(spec)(["hello"])[0]) == 384
    fake = FakeEmbedder(dimension=8)
    custom: CustomProviderSpec = {"provider": "custom", "config": {"embedding_callable": fake}}
    assert build_embedder(custom) is fake and isinstance(fake, EmbeddingFunction)
    unsupported: OpenCLIPProviderSpec = {"provider": "openclip", "config": {}}
    with pytest.raises(ValueError, match="unknown embedder provider 'openclip'"):
        build_embedder(unsupported)


def test_rag_tools_embed_with_the_set_config(tmp_path: Path) -> None:
    from crewgraph.toolkit import TXTSearchTool

    notes = tmp_path / "notes.txt"
    notes.write_text("The cafeteria serves lasagna on Wednesdays.")
    embedder = FakeEmbedder(dimension=16)
    set_rag_config(QdrantConfig(options={"location": ":memory:"}, embedding_function=embedder.embed_one))
    tool = TXTSearchTool(txt=str(notes))
    assert "lasagna" in tool.run(search_query="lasagna")
    assert tool._get_index().embedder(["probe"]) == [embedder.embed_one("probe")]  # the config's function
    assert TXTSearchTool(txt=str(notes), config={"embedder": {"provider": "onnx"}})._get_index().embedder is not (
        tool._get_index().embedder)  # a tool's own embedder still wins
