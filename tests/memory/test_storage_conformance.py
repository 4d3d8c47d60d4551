"""One conformance suite over every StorageBackend: embedded edge, qdrant-client :memory:,
and a Qdrant server when CREWGRAPH_QDRANT_URL is set (skipped with that reason otherwise)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from memory_helpers import WordHashEmbedder

from crewgraph.memory import EmbeddingDimensionMismatchError, MemoryRecord, StorageBackend
from crewgraph.memory.types import utc_now

EMB = WordHashEmbedder()


def rec(content: str, scope: str = "/", **kw: Any) -> MemoryRecord:
    return MemoryRecord(content=content, scope=scope, embedding=EMB.vector(content), **kw)


def contents(hits: list[tuple[MemoryRecord, float]]) -> set[str]:
    return {r.content for r, _ in hits}


@pytest.fixture
def filled(backend: Any) -> Any:
    now = utc_now()
    backend.save(
        [
            rec("alpha database postgres", "/a/b", categories=["db"], created_at=now - timedelta(days=3)),
            rec("alpha database mysql", "/a/bc", categories=["db", "legacy"], created_at=now - timedelta(days=2)),
            rec("beta api design", "/a", categories=["api"], created_at=now - timedelta(days=1)),
            rec("root level note", "/", created_at=now),
            rec("alice secret key", "/users", source="user:alice", private=True, created_at=now),
            rec("bob public note", "/users", source="user:bob", created_at=now),
        ]
    )
    return backend


def test_is_a_storage_backend(backend: Any) -> None:
    assert isinstance(backend, StorageBackend)


def test_empty_store_answers_without_error(backend: Any) -> None:
    assert backend.search(EMB.vector("x")) == []
    assert backend.count() == 0
    assert backend.list_records() == []
    assert backend.list_scopes() == []
    assert backend.list_categories() == {}
    assert backend.get_scope_info("/").record_count == 0
    assert backend.get_record("nope") is None
    assert backend.delete(scope_prefix="/a") == 0


def test_search_scores_are_similarities(filled: Any) -> None:
    hits = filled.search(EMB.vector("alpha database postgres"), limit=10)
    assert hits[0][0].content == "alpha database postgres"
    assert hits[0][1] == pytest.approx(1.0, abs=1e-4)
    assert all(0.0 <= s <= 1.0 for _, s in hits)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    assert len(filled.search(EMB.vector("alpha"), limit=2)) == 2


def test_scope_subtree_is_exact(filled: Any) -> None:
    query = EMB.vector("alpha database")
    assert contents(filled.search(query, scope_prefix="/a/b", limit=10)) == {"alpha database postgres"}
    assert contents(filled.search(query, scope_prefix="/a", limit=10)) == {
        "alpha database postgres",
        "alpha database mysql",
        "beta api design",
    }
    assert len(filled.search(query, scope_prefix="/", limit=10)) == 6
    union = filled.search(query, scopes=["/a/b", "/users"], limit=10)
    assert contents(union) == {"alpha database postgres", "alice secret key", "bob public note"}


def test_categories_source_and_privacy_filters(filled: Any) -> None:
    query = EMB.vector("note key")
    assert contents(filled.search(query, categories=["legacy", "api"], limit=10)) == {
        "alpha database mysql",
        "beta api design",
    }
    assert "alice secret key" not in contents(filled.search(query, include_private=False, limit=10))
    assert "alice secret key" in contents(filled.search(query, include_private=True, limit=10))
    assert contents(filled.search(query, source="user:alice", limit=10)) == {"alice secret key"}
    assert contents(filled.search(query, source="user:bob", include_private=False, limit=10)) == {"bob public note"}
    assert filled.search(query, source="user:carol", limit=10) == []


def test_filters_apply_before_the_limit(filled: Any) -> None:
    # The best hit overall is in /a/b; inside /users the limit must still find 1 record.
    hits = filled.search(EMB.vector("alpha database postgres"), scope_prefix="/users", include_private=False, limit=1)
    assert contents(hits) == {"bob public note"}


def test_created_after_and_metadata_filters(backend: Any) -> None:
    now = utc_now()
    backend.save(
        [
            rec("old fact", created_at=now - timedelta(days=10), metadata={"team": "x"}),
            rec("new fact", created_at=now, metadata={"team": "y"}),
        ]
    )
    query = EMB.vector("fact")
    assert contents(backend.search(query, created_after=now - timedelta(days=1))) == {"new fact"}
    assert contents(backend.search(query, metadata_filter={"team": "x"})) == {"old fact"}


def test_list_records_newest_first_with_offset(filled: Any) -> None:
    records = filled.list_records()
    times = [r.created_at for r in records]
    assert times == sorted(times, reverse=True)
    assert [r.content for r in filled.list_records(scope_prefix="/a")] == [
        "beta api design",
        "alpha database mysql",
        "alpha database postgres",
    ]
    assert [r.content for r in filled.list_records(scope_prefix="/a", limit=1, offset=1)] == ["alpha database mysql"]


def test_scopes_categories_counts_and_info(filled: Any) -> None:
    assert filled.list_scopes("/") == ["/a", "/users"]
    assert filled.list_scopes("/a") == ["/a/b", "/a/bc"]
    assert filled.list_scopes("/a/b") == []
    assert filled.list_categories() == {"db": 2, "legacy": 1, "api": 1}
    assert filled.list_categories("/a/b") == {"db": 1}
    assert filled.count() == 6 and filled.count("/a") == 3 and filled.count("/a/b") == 1
    assert filled.scope_counts("/a") == {"/a": 3, "/a/b": 1, "/a/bc": 1}
    info = filled.get_scope_info("/a")
    assert info.path == "/a" and info.record_count == 3
    assert info.categories == ["api", "db", "legacy"]
    assert info.child_scopes == ["/a/b", "/a/bc"]
    assert info.oldest_record is not None and info.newest_record is not None
    assert info.oldest_record < info.newest_record


def test_get_record_roundtrip_with_custom_id(backend: Any) -> None:
    original = rec("custom", "/x/y", id="not-a-uuid", categories=["c"], metadata={"k": [1, 2]}, importance=0.7)
    backend.save([original])
    got = backend.get_record("not-a-uuid")
    assert got is not None
    assert got.model_dump() == original.model_dump()
    assert got.embedding == pytest.approx(original.embedding)


def test_update_keeps_vector_when_embedding_is_none(backend: Any) -> None:
    original = rec("keep my vector")
    backend.save([original])
    backend.update(original.model_copy(update={"embedding": None, "importance": 0.9}))
    got = backend.get_record(original.id)
    assert got is not None and got.importance == 0.9
    assert got.embedding == pytest.approx(original.embedding)
    assert backend.count() == 1


def test_delete_by_every_criterion(filled: Any) -> None:
    now = utc_now()
    assert filled.delete(categories=["legacy"]) == 1
    assert filled.delete(older_than=now - timedelta(hours=60)) == 1  # the 3-day-old one
    target = filled.list_records(scope_prefix="/users")[0]
    assert filled.delete(record_ids=[target.id]) == 1
    assert filled.delete(scope_prefix="/a") == 1
    assert filled.count() == 2


def test_reset_subtree_and_whole_store(filled: Any) -> None:
    filled.reset("/a")
    assert filled.count() == 3
    filled.reset()
    assert filled.count() == 0
    # A dropped store forgets its vector size: another embedder may start over.
    filled.save([MemoryRecord(content="new", embedding=[1.0, 0.0, 0.0])])
    assert filled.count() == 1


def test_dimension_mismatch_is_a_clear_error(filled: Any) -> None:
    with pytest.raises(EmbeddingDimensionMismatchError) as err:
        filled.search([0.1] * 7)
    assert "64" in str(err.value) and "7" in str(err.value)
    assert "reset-memories -m" in str(err.value) and "reset()" in str(err.value)
    with pytest.raises(EmbeddingDimensionMismatchError):
        filled.save([MemoryRecord(content="x", embedding=[0.1] * 7)])


def test_save_validates_embeddings(backend: Any) -> None:
    with pytest.raises(ValueError, match="embedding"):
        backend.save([MemoryRecord(content="no vector")])
