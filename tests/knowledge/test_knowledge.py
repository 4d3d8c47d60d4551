"""Knowledge in Qdrant: indexed once per content, queried by meaning, on both Qdrant forms."""

from __future__ import annotations

from pathlib import Path

import pytest

from crewgraph.knowledge import Knowledge, KnowledgeStorage
from crewgraph.knowledge.source.string_knowledge_source import StringKnowledgeSource
from crewgraph.knowledge.source.text_file_knowledge_source import TextFileKnowledgeSource
from crewgraph.testing import FakeEmbedder

FACTS = [
    "The office cafeteria serves lunch between noon and two pm.",
    "Parking permits are renewed every january at the front desk.",
    "The vpn password rotates monthly and is sent by email.",
]


def _knowledge(embedder: FakeEmbedder, name: str = "test", **kw: object) -> Knowledge:
    sources = [StringKnowledgeSource(content=f) for f in FACTS]
    return Knowledge(collection_name=name, sources=sources, embedder=embedder, **kw)  # type: ignore[arg-type]


def test_query_finds_the_relevant_chunk(workdir: Path, embedder: FakeEmbedder) -> None:
    knowledge = _knowledge(embedder)
    [best, *_] = knowledge.query(["when is lunch served in the cafeteria"], results_limit=3, score_threshold=0.0)
    assert best["content"] == FACTS[0]
    assert 0.0 < best["score"] <= 1.0
    assert best["metadata"]["source"].startswith("StringKnowledgeSource(")
    assert knowledge.query(["lunch cafeteria"], results_limit=1, score_threshold=0.0)[0]["content"] == FACTS[0]
    assert knowledge.query(["zebra xylophone quantum"], results_limit=3, score_threshold=0.9) == []
    stored = Path(knowledge.store.location)
    assert stored.is_relative_to(Path(__import__("os").environ["CREWGRAPH_STORAGE_DIR"]) / "knowledge")


def test_unchanged_sources_are_not_embedded_again(workdir: Path, embedder: FakeEmbedder) -> None:
    (workdir / "knowledge" / "a.txt").write_text("Alpha facts about apples.")
    (workdir / "knowledge" / "b.txt").write_text("Beta facts about bananas.")

    def build() -> Knowledge:
        return Knowledge(
            collection_name="files",
            sources=[TextFileKnowledgeSource(file_paths=["a.txt", "b.txt"])],
            embedder=embedder,
        )

    first = build()
    report = first.add_sources()
    assert sorted(report.embedded) == ["knowledge/a.txt", "knowledge/b.txt"]
    first.store.close()
    embedded = embedder.texts_embedded

    second = build()  # a later run: same store on disk, nothing changed
    report = second.add_sources()
    assert report.embedded == [] and sorted(report.kept) == ["knowledge/a.txt", "knowledge/b.txt"]
    assert embedder.texts_embedded == embedded
    second.store.close()

    (workdir / "knowledge" / "b.txt").write_text("Beta facts about blueberries now.")
    third = build()
    report = third.add_sources()
    assert report.embedded == ["knowledge/b.txt"] and report.kept == ["knowledge/a.txt"]
    assert report.removed == 1  # the old version of b.txt
    assert embedder.texts_embedded == embedded + 1
    hits = third.query(["blueberries"], results_limit=5, score_threshold=0.0)
    assert [h["content"] for h in hits if "Beta" in h["content"]] == ["Beta facts about blueberries now."]
    assert third.store.backend.count("/k") == 2


def test_other_knowledge_in_the_same_collection_is_left_alone(workdir: Path, embedder: FakeEmbedder) -> None:
    one = Knowledge("shared", [StringKnowledgeSource(content="one fact")], embedder=embedder)
    one.add_sources()
    other = Knowledge("shared", [StringKnowledgeSource(content="another fact")], embedder=embedder,
                      storage=one.store)
    assert other.add_sources().removed == 0
    assert one.store.backend.count("/k") == 2
    assert [h["content"] for h in one.query(["fact"], score_threshold=-1.0)] == ["one fact"]


def test_qdrant_server_backend(workdir: Path, embedder: FakeEmbedder) -> None:
    from qdrant_client import QdrantClient

    from crewgraph.memory.storage.qdrant_server import QdrantServerStorage

    backend = QdrantServerStorage(client=QdrantClient(":memory:"), collection="crewgraph_knowledge_test")
    knowledge = _knowledge(embedder, storage=KnowledgeStorage(embedder=embedder, backend=backend))
    [best] = knowledge.query(["parking permits renewal"], results_limit=1, score_threshold=0.0)
    assert best["content"] == FACTS[1]


def test_server_url_from_the_environment(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CREWGRAPH_QDRANT_URL", "http://127.0.0.1:6333")
    storage = KnowledgeStorage(collection_name="Crew Docs")
    assert storage.location == "http://127.0.0.1:6333 (collection crewgraph_knowledge_crew_docs)"


def test_another_embedder_rebuilds_the_store(workdir: Path) -> None:
    small = _knowledge(FakeEmbedder(dimension=16), name="dims")
    small.add_sources()
    small.store.close()
    big_embedder = FakeEmbedder(dimension=32)
    big = _knowledge(big_embedder, name="dims")
    assert sorted(big.add_sources().embedded) == sorted(
        s.describe() for s in big.sources
    )
    assert big.query(["vpn password"], results_limit=1, score_threshold=0.0)[0]["content"] == FACTS[2]


def test_reset_then_query_indexes_again(workdir: Path, embedder: FakeEmbedder) -> None:
    knowledge = _knowledge(embedder)
    knowledge.add_sources()
    knowledge.reset()
    assert knowledge.store.backend.count() == 0
    assert knowledge.query(["vpn password rotates"], results_limit=1, score_threshold=0.0)[0]["content"] == FACTS[2]


def test_knowledge_sources_must_be_sources() -> None:
    with pytest.raises(ValueError, match=r"knowledge_sources\[0\] is a str.*StringKnowledgeSource\(content=\.\.\.\)"):
        Knowledge("x", ["just text"])  # type: ignore[list-item]
