"""crewai.memory's EncodingFlow: the save pipeline as a flow, encoding into a real store; and
CrewAI's view API (bind, read_only, embed_text/embed_texts, reset_all)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import WordHashEmbedder

from crewgraph.memory import EncodingFlow, Memory, MemoryScope, MemorySlice, embed_text, embed_texts
from crewgraph.memory.analysis import MemoryAnalysis
from crewgraph.memory.storage.qdrant_edge import QdrantEdgeStorage
from crewgraph.memory.types import MemoryConfig
from crewgraph.testing import FakeLLM


def _flow(tmp_path: Path, llm: Any, embedder: WordHashEmbedder) -> tuple[EncodingFlow, QdrantEdgeStorage]:
    store = QdrantEdgeStorage(tmp_path / "edge")
    return EncodingFlow(storage=store, llm=llm, embedder=embedder, config=MemoryConfig()), store


def test_the_flow_encodes_a_batch(tmp_path: Path, embedder: WordHashEmbedder) -> None:
    llm = FakeLLM([MemoryAnalysis(suggested_scope="/project", categories=["decision"], importance=0.8)])
    flow, store = _flow(tmp_path, llm, embedder)
    try:
        flow.kickoff(inputs={"items": [
            {"content": "We chose Postgres for the billing service", "scope": "/db", "categories": ["db"],
             "importance": 0.9},
            {"content": "We chose Postgres for the billing service", "scope": "/db", "categories": ["db"],
             "importance": 0.9},
            {"content": "The deploy runs every Friday"},
        ]})
        state = flow.state
        assert len(embedder.calls) == 1 and len(embedder.calls[0]) == 3  # one embedder call
        assert state.items_dropped_dedup == 1 and state.items[1].dropped
        assert state.records_inserted == 2
        first, _, third = state.items
        assert first.result_record is not None and first.result_record.scope == "/db"
        assert third.result_record is not None and third.result_record.scope == "/project"
        assert third.result_record.categories == ["decision"] and third.result_record.importance == 0.8
        assert len(llm.calls) == 1  # only the item with missing fields asked the model
        stored = {r.content for r in store.list_records(limit=10)}
        assert stored == {"We chose Postgres for the billing service", "The deploy runs every Friday"}
    finally:
        store.close()


def test_a_known_memory_is_kept_not_stored_twice(tmp_path: Path, embedder: WordHashEmbedder) -> None:
    flow, store = _flow(tmp_path, FakeLLM([]), embedder)
    try:
        item = {"content": "Alice owns the payments API", "scope": "/", "categories": [], "importance": 0.5}
        flow.kickoff(inputs={"items": [item]})
        first = flow.state.items[0].result_record
        again = EncodingFlow(storage=store, llm=FakeLLM([]), embedder=embedder)
        again.kickoff(inputs={"items": [item]})
        assert again.state.records_inserted == 0
        assert first is not None and again.state.items[0].result_record is not None
        assert again.state.items[0].result_record.id == first.id
    finally:
        store.close()


def test_embed_text_and_texts(embedder: WordHashEmbedder) -> None:
    vectors = embed_texts(embedder, ["a b", "c"])
    assert len(vectors) == 2 and vectors[0] == embedder.vector("a b")
    assert embed_text(embedder, "c") == embedder.vector("c")
    with pytest.raises(TypeError, match="not an embedder"):
        embed_texts(object(), ["x"])


def test_views_bind_and_say_when_unbound(make_memory: Callable[..., Memory]) -> None:
    memory = make_memory()
    scope = MemoryScope(root_path="/team")
    with pytest.raises(RuntimeError, match=r"bind\(memory\)"):
        scope.recall("x")
    assert scope.bind(memory) is scope and scope.read_only is False
    record = scope.remember("The team meets on Monday", categories=["meeting"], importance=0.6)
    assert record is not None and record.scope == "/team" and record.categories == ["meeting"]
    view = MemorySlice(scopes=["/team"]).bind(memory)
    assert view.read_only and view.list_scopes() == memory.list_scopes("/team")
    assert view.info().path == "/team"
    assert scope.forget(categories=["meeting"]) == 1
    with pytest.raises(ValueError, match="memory_kind"):
        MemoryScope(memory, "/x", memory_kind="slice")  # type: ignore[arg-type]


def test_reset_all_empties_the_store(make_memory: Callable[..., Memory]) -> None:
    memory = make_memory(root_scope="/a")
    memory.remember("kept in a", scope="/", categories=[], importance=0.5)
    other = make_memory(storage=memory.storage_backend)
    other.remember("elsewhere", scope="/b", categories=[], importance=0.5)
    memory.reset_all()
    assert other.list_records() == []
