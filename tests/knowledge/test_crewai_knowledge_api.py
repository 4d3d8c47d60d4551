"""CrewAI's knowledge API details: CrewDoclingSource, source storage/add()/get_embeddings,
KnowledgeStorage.save/search, the async forms, and set_rag_config reaching knowledge."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from crewgraph.knowledge import (
    Knowledge,
    KnowledgeStorage,
    StringKnowledgeSource,
    TextFileKnowledgeSource,
)
from crewgraph.knowledge.source.crew_docling_source import CrewDoclingSource
from crewgraph.testing import FakeEmbedder, FakeHTTPService


def test_docling_source_reads_files_and_urls(workdir: Path, embedder: FakeEmbedder) -> None:
    (workdir / "knowledge" / "faq.html").write_text(
        "<html><body><h1>FAQ</h1><p>Refunds take 5 days.</p><script>x()</script></body></html>", encoding="utf-8")
    (workdir / "knowledge" / "notes.md").write_text("# Notes\nShipping is free over 50 EUR.", encoding="utf-8")
    with FakeHTTPService({"GET /policy": "<p>Returns within 30 days.</p>"}) as web:
        source = CrewDoclingSource(file_paths=["faq.html", "notes.md", f"{web.url}/policy"])
        assert source.source_type == "docling" and len(source.safe_file_paths) == 3
        knowledge = Knowledge(collection_name="docling", sources=[source], embedder=embedder)
        hits = knowledge.query(["Refunds take 5 days"], score_threshold=0.0)
    texts = " ".join(h["content"] for h in hits)
    assert "# FAQ" in texts and "Refunds take 5 days." in texts and "x()" not in texts
    assert "Returns within 30 days." in " ".join(source.content)
    with pytest.raises(FileNotFoundError, match=r"missing\.docx"):
        CrewDoclingSource(file_paths=["missing.docx"])


def test_docling_source_uses_a_given_converter(workdir: Path) -> None:
    class Result:
        class document:
            @staticmethod
            def export_to_markdown() -> str:
                return "converted by docling"

    class Converter:
        def convert(self, source: object) -> Result:
            return Result()

    (workdir / "knowledge" / "a.pdf").write_bytes(b"%PDF-1.4")
    source = CrewDoclingSource(file_paths=["a.pdf"], document_converter=Converter())
    assert list(source.load_content().values()) == ["converted by docling"]


def test_add_saves_into_the_sources_storage(workdir: Path, embedder: FakeEmbedder) -> None:
    storage = KnowledgeStorage(embedder=embedder, collection_name="direct")
    source = StringKnowledgeSource(content="Owls hunt at night. Bats do too.", storage=storage, chunk_size=20,
                                   chunk_overlap=5)
    assert source.source_type == "string" and source.get_embeddings() == []
    asyncio.run(source.aadd())
    assert len(source.chunks) >= 2 and len(source.get_embeddings()) == len(source.chunks)
    hits = storage.search(["Owls hunt at night"], 3, None, 0.0)
    assert hits and hits[0]["content"] in source.chunks
    assert asyncio.run(storage.asearch(["Owls"], limit=1, score_threshold=0.0))[0]["content"] in source.chunks
    asyncio.run(storage.areset())
    assert storage.search(["Owls"], score_threshold=0.0) == []


def test_storage_search_filters_by_metadata(workdir: Path, embedder: FakeEmbedder) -> None:
    storage = KnowledgeStorage(embedder=embedder, collection_name="meta")
    storage.save_chunks(["red apples"], {"colour": "red"})
    storage.save_chunks(["green apples"], {"colour": "green"})
    hits = storage.search(["apples"], limit=5, metadata_filter={"colour": "green"}, score_threshold=-1.0)
    assert [h["content"] for h in hits] == ["green apples"]


def test_file_sources_have_crewai_fields(workdir: Path, embedder: FakeEmbedder) -> None:
    (workdir / "knowledge" / "a.txt").write_text("alpha", encoding="utf-8")
    source = TextFileKnowledgeSource(file_paths=["a.txt"])
    assert source.source_type == "text_file" and source.safe_file_paths == [Path("knowledge/a.txt")]
    knowledge = Knowledge(collection_name="fields", sources=[source], embedder=embedder)
    asyncio.run(knowledge.aadd_sources())
    assert source.content == {Path("knowledge/a.txt"): "alpha"}
    assert asyncio.run(knowledge.aquery(["alpha"], score_threshold=0.0))[0]["content"] == "alpha"
    asyncio.run(knowledge.areset())


def test_set_rag_config_reaches_knowledge(workdir: Path) -> None:
    from crewgraph.rag.config.utils import clear_rag_config, set_rag_config
    from crewgraph.rag.qdrant.config import QdrantConfig

    pytest.importorskip("qdrant_client")
    calls: list[str] = []
    fake = FakeEmbedder(dimension=32)

    def embed(text: str) -> list[float]:
        calls.append(text)
        return [float(x) for x in fake([text])[0]]

    set_rag_config(QdrantConfig(options={"location": ":memory:"}, embedding_function=embed))
    try:
        knowledge = Knowledge(collection_name="rag", sources=[StringKnowledgeSource(content="Qdrant stores vectors.")])
        hits = knowledge.query(["vectors"], score_threshold=-1.0)
        assert hits and hits[0]["content"] == "Qdrant stores vectors."
        assert "Qdrant stores vectors." in calls  # the configured embedding function embedded the chunk
        from crewgraph.rag.config.utils import get_rag_client

        collections = [c.name for c in get_rag_client().client.get_collections().collections]
        assert "crewgraph_knowledge_rag" in collections  # the configured Qdrant holds the chunks
    finally:
        clear_rag_config()
