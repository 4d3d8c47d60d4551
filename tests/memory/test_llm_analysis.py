"""LLM analysis on save, consolidation, extraction, and how each degrades when the LLM fails."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from memory_helpers import explicit

from crewgraph.memory import Memory
from crewgraph.memory.analysis import (
    ConsolidationAction,
    ConsolidationPlan,
    ExtractedMemories,
    ExtractedMetadata,
    MemoryAnalysis,
)
from crewgraph.testing import FakeLLM

MakeMemory = Callable[..., Memory]


def test_memory_llm_is_created_lazily_and_never_fails_at_construction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    m = Memory(llm="gpt-4o-mini")
    assert m._llm_obj is None


def test_save_analysis_fills_missing_fields(make_memory: MakeMemory) -> None:
    llm = FakeLLM(
        [
            MemoryAnalysis(
                suggested_scope="project/decisions",
                categories=["database"],
                importance=0.8,
                extracted_metadata=ExtractedMetadata(entities=["PostgreSQL"], topics=["storage"]),
            )
        ]
    )
    m = make_memory(llm=llm)
    m.remember("seed", scope="/team", categories=["people"], importance=0.5)
    record = m.remember("We chose PostgreSQL for the user database.", metadata={"ticket": "DB-1"})
    assert record is not None
    assert record.scope == "/project/decisions"
    assert record.categories == ["database"] and record.importance == 0.8
    assert record.metadata == {"ticket": "DB-1", "entities": ["PostgreSQL"], "topics": ["storage"]}
    request = llm.last_request
    assert request is not None and request.response_model is MemoryAnalysis
    assert "/team" in request.prompt and "people" in request.prompt  # existing scopes/categories offered


def test_only_missing_fields_come_from_the_llm(make_memory: MakeMemory) -> None:
    llm = FakeLLM([MemoryAnalysis(suggested_scope="/elsewhere", categories=["x"], importance=0.9)])
    m = make_memory(llm=llm)
    record = m.remember("explicit scope only", scope="/mine")
    assert record is not None and (record.scope, record.categories, record.importance) == ("/mine", ["x"], 0.9)
    assert llm.call_count == 1


def test_a_scope_view_stores_at_its_root_as_crewai_does(make_memory: MakeMemory) -> None:
    """CrewAI's MemoryScope.remember(content, scope="/"): the view's root, no suggested sub-scope
    appended (the analysis still gives categories and importance)."""
    llm = FakeLLM(default=MemoryAnalysis(suggested_scope="/findings", categories=["lab"], importance=0.5))
    m = make_memory(llm=llm)
    view = m.scope("/agent/researcher")
    record = view.remember("a finding")
    assert record is not None and (record.scope, record.categories) == ("/agent/researcher", ["lab"])
    record = view.remember("another finding", scope=None)
    assert record is not None and record.scope == "/agent/researcher"
    record = view.remember("a note", scope="notes")
    assert record is not None and record.scope == "/agent/researcher/notes"
    view.remember_many(["first fact", "second fact about cats"])
    m.drain_writes(10)
    assert {r.scope for r in view.list_records()} == {"/agent/researcher", "/agent/researcher/notes"}
    assert m.remember("outside a view") is not None  # the memory itself still infers a scope
    assert any(r.scope == "/findings" for r in m.list_records())


@pytest.mark.parametrize("failure", [RuntimeError("LLM down"), "this is not json", TimeoutError])
def test_save_analysis_failure_stores_at_root_with_default_importance(
    make_memory: MakeMemory, failure: Any, caplog: pytest.LogCaptureFixture
) -> None:
    m = make_memory(llm=FakeLLM([failure]))
    with caplog.at_level(logging.WARNING, logger="crewgraph.memory"):
        record = m.remember("The API rate limit is 1000 requests per minute.")
    assert record is not None
    assert (record.scope, record.categories, record.importance) == ("/", [], 0.5)
    assert "save analysis failed" in caplog.text
    assert m.recall("rate limit", depth="shallow")[0].record.id == record.id


def test_failure_inside_a_view_stores_at_the_view_root(make_memory: MakeMemory) -> None:
    m = make_memory(llm=FakeLLM([RuntimeError("down")]))
    record = m.scope("/agent/x").remember("note")
    assert record is not None and record.scope == "/agent/x"


def test_an_unbuildable_llm_degrades_too(make_memory: MakeMemory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    m = make_memory(llm="gpt-4o-mini")
    record = m.remember("no key anywhere")
    assert record is not None and record.scope == "/" and record.importance == 0.5
    assert m.extract_memories("Fact one. Fact two.") == ["Fact one. Fact two."]


def test_llm_returning_a_path_with_dotdot_is_not_trusted(make_memory: MakeMemory) -> None:
    m = make_memory(llm=FakeLLM([MemoryAnalysis(suggested_scope="/../../etc", categories=[], importance=0.5)]))
    record = m.scope("/agent/x").remember("sneaky")
    assert record is not None and record.scope == "/agent/x"


def test_extract_memories(make_memory: MakeMemory) -> None:
    facts = ["Migration from MySQL to PostgreSQL planned", "Budget is $50k", "Sarah leads the migration"]
    llm = FakeLLM([ExtractedMemories(memories=facts), RuntimeError("down")])
    m = make_memory(llm=llm)
    raw = "Meeting notes: migrate MySQL to PostgreSQL next quarter. Budget $50k. Sarah leads."
    assert m.extract_memories(raw) == facts
    assert llm.last_request is not None and llm.last_request.response_model is ExtractedMemories
    assert m.extract_memories(raw) == [raw]  # failure: the whole text, nothing lost
    assert m.extract_memories("   ") == []
    assert llm.call_count == 2


# -- consolidation --------------------------------------------------------------------

SIMILAR_A = "user database choice mysql"
SIMILAR_B = "user database choice postgres"  # word-hash cosine 0.75 -> similarity 0.8


def _consolidating(make_memory: MakeMemory, *replies: Any, **kw: Any) -> tuple[Memory, FakeLLM, str]:
    llm = FakeLLM(list(replies))
    m = make_memory(llm=llm, consolidation_threshold=0.75, **kw)
    first = m.remember(SIMILAR_A, **explicit(scope="/db"))
    assert first is not None and llm.call_count == 0  # nothing similar yet
    return m, llm, first.id


def test_consolidation_update_merges_into_the_existing_record(make_memory: MakeMemory) -> None:
    m, llm, old_id = _consolidating(make_memory)
    llm.add(ConsolidationPlan(actions=[ConsolidationAction(action="update", record_id=old_id, new_content="user database moved from mysql to postgres")], insert_new=False))
    result = m.remember(SIMILAR_B, **explicit(scope="/db"))
    assert result is not None and result.id == old_id
    assert [r.content for r in m.list_records()] == ["user database moved from mysql to postgres"]
    assert llm.last_request is not None and llm.last_request.response_model is ConsolidationPlan
    assert old_id in llm.last_request.prompt
    assert m.recall("moved", depth="shallow")[0].record.id == old_id  # re-embedded


def test_consolidation_delete_and_insert(make_memory: MakeMemory) -> None:
    m, llm, old_id = _consolidating(make_memory)
    llm.add(ConsolidationPlan(actions=[ConsolidationAction(action="delete", record_id=old_id)], insert_new=True))
    m.remember(SIMILAR_B, **explicit(scope="/db"))
    assert [r.content for r in m.list_records()] == [SIMILAR_B]


def test_consolidation_keep_and_insert_both(make_memory: MakeMemory) -> None:
    m, llm, old_id = _consolidating(make_memory)
    llm.add(ConsolidationPlan(actions=[ConsolidationAction(action="keep", record_id=old_id)], insert_new=True))
    m.remember(SIMILAR_B, **explicit(scope="/db"))
    assert sorted(r.content for r in m.list_records()) == [SIMILAR_A, SIMILAR_B]


def test_consolidation_skip_insert_returns_the_known_record(make_memory: MakeMemory) -> None:
    m, llm, old_id = _consolidating(make_memory)
    llm.add(ConsolidationPlan(actions=[ConsolidationAction(action="keep", record_id=old_id)], insert_new=False))
    result = m.remember(SIMILAR_B, **explicit(scope="/db"))
    assert result is not None and result.id == old_id
    assert len(m.list_records()) == 1


def test_consolidation_ignores_unknown_record_ids(make_memory: MakeMemory) -> None:
    m, llm, _ = _consolidating(make_memory)
    llm.add(ConsolidationPlan(actions=[ConsolidationAction(action="delete", record_id="made-up")], insert_new=True))
    m.remember(SIMILAR_B, **explicit(scope="/db"))
    assert len(m.list_records()) == 2


def test_consolidation_failure_inserts(make_memory: MakeMemory) -> None:
    m, _, _ = _consolidating(make_memory, RuntimeError("down"))
    m.remember(SIMILAR_B, **explicit(scope="/db"))
    assert len(m.list_records()) == 2


def test_consolidation_disabled_at_threshold_one(make_memory: MakeMemory) -> None:
    llm = FakeLLM([])
    m = make_memory(llm=llm, consolidation_threshold=1.0)
    m.remember(SIMILAR_A, **explicit())
    m.remember(SIMILAR_B, **explicit())
    assert llm.call_count == 0 and len(m.list_records()) == 2


def test_consolidation_never_shows_another_sources_records(make_memory: MakeMemory) -> None:
    llm = FakeLLM([])
    m = make_memory(llm=llm, consolidation_threshold=0.75)
    m.remember(SIMILAR_A, source="user:alice", private=True, **explicit())
    m.remember(SIMILAR_B, source="user:bob", **explicit())
    assert llm.call_count == 0  # alice's private record was never a candidate
    assert len(m.list_records(include_private=True)) == 2


def test_consolidation_limit_caps_the_candidates(make_memory: MakeMemory) -> None:
    llm = FakeLLM([])
    m = make_memory(llm=llm, consolidation_threshold=0.7, consolidation_limit=2)
    for word in ["alpha", "beta", "gamma", "delta"]:
        m.remember(f"user database choice {word}", **explicit(), source=word)
    m.remember_many([f"user database choice {w}" for w in ["one", "two", "three"]], **explicit(), source="same")
    m.drain_writes()
    llm.add(ConsolidationPlan(insert_new=True))
    m.remember("user database choice four", **explicit(), source="same")
    assert llm.last_request is not None and llm.last_request.prompt.count("id=") == 2


def test_extract_and_remember_is_queued_behind_the_read_barrier(make_memory: MakeMemory) -> None:
    llm = FakeLLM([ExtractedMemories(memories=["Budget is 50k", "Sarah leads"])], latency=0.2)
    m = make_memory(llm=llm)
    future = m.extract_and_remember("Budget 50k; Sarah leads.", scope="/notes", categories=[], importance=0.5)
    assert not future.done()
    assert {x.record.content for x in m.recall("budget Sarah", depth="shallow")} == {"Budget is 50k", "Sarah leads"}
    assert future.result() == ["Budget is 50k", "Sarah leads"]
    assert all(r.scope == "/notes" for r in m.list_records())
    scoped = m.scope("/agent/a").extract_and_remember("  ")
    assert scoped.result() == []
    with pytest.raises(PermissionError):
        m.slice(["/x"]).extract_and_remember("text")


def test_lenient_parsing_of_model_answers() -> None:
    from crewgraph.memory.analysis import QueryAnalysis

    assert MemoryAnalysis(suggested_scope="/", importance=8).importance == 0.8
    assert MemoryAnalysis(suggested_scope="/", importance=75).importance == 0.75
    assert ConsolidationAction(action="Merge", record_id="x").action == "update"
    assert QueryAnalysis(complexity="moderate").complexity == "simple"
    assert QueryAnalysis(complexity="Complex").complexity == "complex"
