"""Memory's public API with explicit fields (no LLM involved): scopes, slices, privacy,
batching and dedup, the read barrier, exploration helpers, events."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from memory_helpers import WordHashEmbedder, explicit

from crewgraph.events import crewgraph_event_bus
from crewgraph.events.memory_events import (
    MemoryQueryCompletedEvent,
    MemoryQueryFailedEvent,
    MemoryQueryStartedEvent,
    MemorySaveCompletedEvent,
    MemorySaveFailedEvent,
    MemorySaveStartedEvent,
)
from crewgraph.memory import Memory, MemoryMatch, MemoryRecord, MemoryScope, MemorySlice, ScopeInfo

MakeMemory = Callable[..., Memory]


def test_defaults_match_the_configuration_table() -> None:
    m = Memory()
    assert m.llm == "gpt-4o-mini"
    assert m.embedder is None
    expected = {
        "recency_weight": 0.3,
        "semantic_weight": 0.5,
        "importance_weight": 0.2,
        "recency_half_life_days": 30,
        "consolidation_threshold": 0.85,
        "consolidation_limit": 5,
        "default_importance": 0.5,
        "batch_dedup_threshold": 0.98,
        "confidence_threshold_high": 0.8,
        "confidence_threshold_low": 0.5,
        "complex_query_threshold": 0.7,
        "exploration_budget": 1,
        "query_analysis_threshold": 200,
        "root_scope": None,
    }
    assert {k: getattr(m, k) for k in expected} == expected


def test_remember_with_explicit_fields_never_calls_the_llm(make_memory: MakeMemory) -> None:
    m = make_memory()
    record = m.remember("Sprint velocity is 42 points", scope="/team/metrics", categories=["metrics"], importance=0.8)
    assert isinstance(record, MemoryRecord)
    assert (record.scope, record.categories, record.importance) == ("/team/metrics", ["metrics"], 0.8)
    assert m.llm.call_count == 0
    matches = m.recall("sprint velocity", depth="shallow")
    assert isinstance(matches[0], MemoryMatch)
    assert matches[0].record.content == "Sprint velocity is 42 points"
    assert "semantic" in matches[0].match_reasons and "recency" in matches[0].match_reasons


def test_recall_ranks_by_composite_score(make_memory: MakeMemory) -> None:
    m = make_memory(semantic_weight=0.0, recency_weight=0.0, importance_weight=1.0)
    m.remember("database choice postgres", **explicit(importance=0.2))
    m.remember("database choice mysql", **explicit(importance=0.9))
    ranked = m.recall("database choice", depth="shallow")
    assert [x.record.content for x in ranked] == ["database choice mysql", "database choice postgres"]
    assert ranked[0].score == pytest.approx(0.9)


def test_remember_many_is_non_blocking_and_recall_is_a_read_barrier(store_dir: Any) -> None:
    gate = threading.Event()
    inner = WordHashEmbedder()

    def slow_embedder(texts: list[str]) -> list[list[float]]:
        gate.wait(5)
        return inner(texts)

    m = Memory(storage=str(store_dir / "m"), embedder=slow_embedder, llm=None)
    try:
        start = time.perf_counter()
        assert m.remember_many(["Fact A.", "Fact B.", "Fact C."], **explicit()) == []
        assert time.perf_counter() - start < 0.5  # returned while the embedder is blocked
        threading.Timer(0.2, gate.set).start()
        matches = m.recall("fact", depth="shallow", limit=10)
        assert {x.record.content for x in matches} == {"Fact A.", "Fact B.", "Fact C."}
    finally:
        gate.set()
        m.close()


def test_remember_many_drops_intra_batch_duplicates_in_one_embedding_call(
    make_memory: MakeMemory, embedder: WordHashEmbedder
) -> None:
    m = make_memory()
    m.remember_many(
        ["CrewAI supports complex workflows.", "Python is a great language.", "CrewAI supports complex workflows."],
        **explicit(),
    )
    m.drain_writes()
    assert sorted(r.content for r in m.list_records()) == [
        "CrewAI supports complex workflows.",
        "Python is a great language.",
    ]
    assert len(embedder.calls) == 1 and len(embedder.calls[0]) == 3


def test_batch_dedup_threshold_is_configurable(make_memory: MakeMemory) -> None:
    texts = ["alpha beta gamma delta", "alpha beta gamma epsilon"]  # similar, not identical
    m = make_memory(batch_dedup_threshold=0.3)
    m.remember_many(texts, **explicit())
    m.drain_writes()
    assert len(m.list_records()) == 1


def test_identical_text_is_not_stored_twice_without_an_llm(make_memory: MakeMemory) -> None:
    m = make_memory()
    first = m.remember("CrewAI ensures reliable operation.", **explicit())
    again = m.remember("CrewAI ensures reliable operation.", **explicit())
    assert first is not None and again is not None and again.id == first.id
    assert len(m.list_records()) == 1
    assert m.llm.call_count == 0


def test_scope_views(make_memory: MakeMemory) -> None:
    m = make_memory()
    researcher = m.scope("/agent/researcher")
    assert isinstance(researcher, MemoryScope)
    rec = researcher.remember("Found three relevant papers on LLM memory.", categories=[], importance=0.5)
    assert rec is not None and rec.scope == "/agent/researcher"
    m.remember("relevant papers about cooking", scope="/agent/writer", categories=[], importance=0.5)
    assert [x.record.scope for x in researcher.recall("relevant papers", depth="shallow")] == ["/agent/researcher"]
    sub = researcher.subscope("project-alpha")
    assert sub.root_path == "/agent/researcher/project-alpha"
    sub.remember("alpha kickoff notes", scope="meetings", categories=[], importance=0.5)
    assert researcher.list_scopes() == ["/agent/researcher/project-alpha"]
    assert researcher.info().record_count == 2
    with pytest.raises(ValueError):
        researcher.recall("x", scope="../writer")
    researcher.reset()
    assert m.list_records(scope="/agent") and all(r.scope == "/agent/writer" for r in m.list_records())


def test_read_only_slice_reads_many_scopes_and_refuses_writes(make_memory: MakeMemory) -> None:
    m = make_memory()
    m.remember("company security policy: rotate keys", scope="/company/knowledge", categories=[], importance=0.5)
    m.remember("researcher note on security", scope="/agent/researcher", categories=[], importance=0.5)
    m.remember("writer note on security", scope="/agent/writer", categories=[], importance=0.5)
    view = m.slice(scopes=["/agent/researcher", "/company/knowledge"], read_only=True)
    assert isinstance(view, MemorySlice)
    found = {x.record.scope for x in view.recall("security", limit=5, depth="shallow")}
    assert found == {"/agent/researcher", "/company/knowledge"}
    with pytest.raises(PermissionError):
        view.remember("new finding")
    with pytest.raises(PermissionError):
        view.remember_many(["new finding"], scope="/agent/researcher")
    with pytest.raises(PermissionError):
        view.forget()


def test_slice_listings_take_memorys_arguments(make_memory: MakeMemory) -> None:
    m = make_memory()
    m.remember("policy", scope="/company/knowledge", categories=["security"], importance=0.5)
    m.remember("note", scope="/agent/researcher/notes", categories=["security", "notes"], importance=0.5)
    m.remember("hidden", scope="/agent/writer", categories=["drafts"], importance=0.5)
    view = m.slice(scopes=["/agent/researcher", "/company/knowledge"])
    assert [r.content for r in view.list_records()] == ["note", "policy"]  # newest first
    assert [r.content for r in view.list_records(limit=1, offset=1)] == ["policy"]
    assert [r.content for r in view.list_records(scope="/company/knowledge")] == ["policy"]
    assert view.list_categories() == {"security": 2, "notes": 1}
    assert view.list_categories("/agent/researcher") == {"security": 1, "notes": 1}
    assert view.tree("/agent/researcher", max_depth=0) == "/agent/researcher (1 records)"
    assert "/company/knowledge (1 records)" in view.tree()
    with pytest.raises(PermissionError, match="outside"):
        view.list_records(scope="/agent/writer")


def test_read_write_slice_requires_an_explicit_scope_inside_it(make_memory: MakeMemory) -> None:
    m = make_memory()
    view = m.slice(scopes=["/team/alpha", "/team/beta"], read_only=False)
    with pytest.raises(ValueError, match="explicit scope"):
        view.remember("Cross-team decision")
    with pytest.raises(PermissionError, match="outside"):
        view.remember("Cross-team decision", scope="/team/gamma", categories=[], importance=0.5)
    rec = view.remember("Cross-team decision", scope="/team/alpha", categories=["decisions"], importance=0.5)
    assert rec is not None and rec.scope == "/team/alpha" and rec.categories == ["decisions"]


def test_private_memories_are_seen_by_their_source_only(make_memory: MakeMemory) -> None:
    m = make_memory()
    m.remember("Alice's API key is sk-123", source="user:alice", private=True, **explicit())
    m.remember("API key rotation is monthly", source="admin", **explicit())
    def seen(**kw: Any) -> set[str]:
        return {x.record.content for x in m.recall("API key", depth="shallow", **kw)}
    assert seen(source="user:alice") == {"Alice's API key is sk-123"}
    assert seen(source="user:bob") == set()
    assert seen() == {"API key rotation is monthly"}
    assert seen(include_private=True) == {"Alice's API key is sk-123", "API key rotation is monthly"}
    assert seen(source="admin") == {"API key rotation is monthly"}


def test_forget_reset_update_and_listing(make_memory: MakeMemory) -> None:
    m = make_memory()
    m.remember("old project note", scope="/project/old", categories=["notes"], importance=0.5)
    m.remember("alpha design", scope="/project/alpha", categories=["architecture"], importance=0.5)
    m.remember("alpha database", scope="/project/alpha", categories=["database"], importance=0.5)
    assert m.forget(scope="/project/old") == 1
    assert m.list_scopes() == ["/project"] and m.list_scopes("/project") == ["/project/alpha"]
    assert m.list_categories() == {"architecture": 1, "database": 1}
    records = m.list_records(scope="/project/alpha", limit=20)
    assert [r.content for r in records] == ["alpha database", "alpha design"]  # newest first
    info = m.info("/project/alpha")
    assert isinstance(info, ScopeInfo) and info.record_count == 2 and info.categories == ["architecture", "database"]
    updated = m.update(records[0].id, content="alpha database is postgres", importance=0.9)
    assert updated.content == "alpha database is postgres"
    assert m.recall("postgres", depth="shallow")[0].record.importance == 0.9
    m.reset(scope="/project/alpha")
    assert m.list_records() == []
    with pytest.raises(KeyError):
        m.update("missing-id", content="x")


def test_tree_format(make_memory: MakeMemory) -> None:
    m = make_memory()
    for scope in ["/project/alpha", "/project/alpha", "/project/beta", "/agent/writer", "/"]:
        m.remember(f"note for {scope} {time.perf_counter_ns()}", scope=scope, categories=[], importance=0.5)
    assert m.tree() == "\n".join(
        [
            "/ (5 records)",
            "  /agent (1 records)",
            "    /agent/writer (1 records)",
            "  /project (3 records)",
            "    /project/alpha (2 records)",
            "    /project/beta (1 records)",
        ]
    )
    assert m.tree("/project", max_depth=0) == "/project (3 records)"


def test_root_scope_confines_everything(make_memory: MakeMemory) -> None:
    shared = make_memory()
    crew = make_memory(root_scope="/crew/research", storage=shared.storage)
    rec = crew.remember("crew finding", scope="/findings", categories=[], importance=0.5)
    assert rec is not None and rec.scope == "/crew/research/findings"
    shared.remember("outside finding", scope="/other", categories=[], importance=0.5)
    assert [x.record.content for x in crew.recall("finding", depth="shallow")] == ["crew finding"]
    assert crew.list_scopes() == ["/crew/research/findings"]
    crew.reset()
    assert [r.content for r in shared.list_records()] == ["outside finding"]


def test_read_only_memory_ignores_writes(make_memory: MakeMemory) -> None:
    m = make_memory(read_only=True)
    assert m.remember("x", **explicit()) is None
    assert m.remember_many(["x"]) == []


def test_events_on_the_bus(make_memory: MakeMemory) -> None:
    seen: list[Any] = []
    m = make_memory()
    with crewgraph_event_bus.scoped_handlers():
        for kind in (
            MemorySaveStartedEvent,
            MemorySaveCompletedEvent,
            MemorySaveFailedEvent,
            MemoryQueryStartedEvent,
            MemoryQueryCompletedEvent,
            MemoryQueryFailedEvent,
        ):
            crewgraph_event_bus.on(kind)(lambda source, event: seen.append((source, event)))
        m.remember("event test", **explicit())
        m.remember_many(["event a", "event b"], **explicit())
        m.drain_writes()
        m.recall("event", depth="shallow")
    kinds = [type(e).__name__ for _, e in seen]
    assert kinds == [
        "MemorySaveStartedEvent",
        "MemorySaveCompletedEvent",
        "MemorySaveStartedEvent",
        "MemorySaveCompletedEvent",
        "MemoryQueryStartedEvent",
        "MemoryQueryCompletedEvent",
    ]
    assert all(source is m for source, _ in seen)
    assert all(e.source_type == "unified_memory" for _, e in seen)
    done = seen[-1][1]
    assert done.query == "event" and done.query_time_ms >= 0 and len(done.results) == 3
    assert seen[1][1].save_time_ms > 0


def test_storage_and_embedder_failures_raise_with_failed_events(store_dir: Any) -> None:
    def broken(texts: list[str]) -> list[list[float]]:
        raise ConnectionError("embedding service down")

    seen: list[Any] = []
    m = Memory(storage=str(store_dir / "m"), embedder=broken, llm=None)
    try:
        with crewgraph_event_bus.scoped_handlers():
            crewgraph_event_bus.on(MemorySaveFailedEvent)(lambda s, e: seen.append(e))
            crewgraph_event_bus.on(MemoryQueryFailedEvent)(lambda s, e: seen.append(e))
            with pytest.raises(ConnectionError):
                m.remember("x", **explicit())
            with pytest.raises(ConnectionError):
                m.recall("x")
            m.remember_many(["y"], **explicit())  # background failure: no raise
            m.drain_writes()
        assert [type(e).__name__ for e in seen] == [
            "MemorySaveFailedEvent",
            "MemoryQueryFailedEvent",
            "MemorySaveFailedEvent",
        ]
        assert "embedding service down" in seen[0].error
    finally:
        m.close()


def test_custom_storage_backend_object_is_used(make_memory: MakeMemory, store_dir: Any) -> None:
    from crewgraph.memory.storage.qdrant_edge import QdrantEdgeStorage

    backend = QdrantEdgeStorage(store_dir / "custom")
    m = make_memory(storage=backend)
    m.remember("via custom backend", **explicit())
    assert backend.count() == 1
    assert m.storage_backend is backend


def test_async_forms(make_memory: MakeMemory) -> None:
    import asyncio

    m = make_memory()

    async def go() -> list[MemoryMatch]:
        await m.aremember("async fact", **explicit())
        return await m.arecall("async fact", depth="shallow")

    assert asyncio.run(go())[0].record.content == "async fact"


def test_event_handlers_may_call_back_into_the_memory(make_memory: MakeMemory) -> None:
    m = make_memory()
    seen: list[int] = []
    with crewgraph_event_bus.scoped_handlers():

        @crewgraph_event_bus.on(MemorySaveCompletedEvent)
        def on_saved(source: Any, event: Any) -> None:
            if source is m and not seen:
                seen.append(len(m.recall("callback", depth="shallow")))
                m.remember("written from a handler", **explicit())

        m.remember_many(["callback fact"], **explicit())
        m.drain_writes()
    assert seen == [1]
    assert {r.content for r in m.list_records()} == {"callback fact", "written from a handler"}


def test_a_closed_memory_reopens_on_use(make_memory: MakeMemory) -> None:
    m = make_memory()
    m.remember("before close", **explicit())
    m.close()
    m.remember("after close", **explicit())
    assert {r.content for r in m.list_records()} == {"before close", "after close"}
