"""A few end-to-end checks with the real offline embedder (all-MiniLM-L6-v2 int8 ONNX)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memory_helpers import explicit

from crewgraph.memory import Memory

MakeMemory = Callable[..., Memory]


def test_recall_finds_the_meaning_not_the_words(make_memory: MakeMemory, onnx_embedder: Any) -> None:
    m = make_memory(embedder=onnx_embedder)
    m.remember_many(
        [
            "We decided to use PostgreSQL for the user database.",
            "The API rate limit is 1000 requests per minute.",
            "Our staging environment uses port 8080.",
            "The team agreed to use feature flags for all new releases.",
        ],
        **explicit(),
    )
    assert m.recall("What database did we choose?", depth="shallow")[0].record.content.startswith("We decided")
    assert m.recall("What are our API limits?", depth="shallow")[0].record.content.startswith("The API rate")


def test_batch_dedup_with_the_real_embedder(make_memory: MakeMemory, onnx_embedder: Any) -> None:
    m = make_memory(embedder=onnx_embedder)
    m.remember_many(
        ["CrewAI supports complex workflows.", "Python is a great language.", "CrewAI supports complex workflows."],
        **explicit(),
    )
    m.drain_writes()
    assert len(m.list_records()) == 2


def test_default_memory_uses_the_offline_embedder(store_dir: Any) -> None:
    m = Memory(storage=str(store_dir / "default"), llm=None)
    try:
        m.remember("Sprint velocity is 42 points", **explicit(scope="/team/metrics"))
        match = m.recall("How fast is the team?", depth="shallow")[0]
        assert match.record.content == "Sprint velocity is 42 points"
        assert len(m.storage_backend.get_record(match.record.id).embedding) == 384  # type: ignore[union-attr]
    finally:
        m.close()
