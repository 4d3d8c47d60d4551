"""The composite score formula, its reasons, and scope path rules."""

from __future__ import annotations

from datetime import timedelta

import pytest

from crewgraph.memory import MemoryRecord, compute_composite_score
from crewgraph.memory.scopes import (
    is_within,
    join_scope,
    normalize_scope,
    scope_ancestors,
    scope_depth,
)
from crewgraph.memory.types import MemoryConfig, recency_decay, similarity_from_distance, utc_now


def test_similarity_is_one_over_one_plus_distance() -> None:
    assert similarity_from_distance(0.0) == 1.0
    assert similarity_from_distance(1.0) == 0.5
    assert similarity_from_distance(0.25) == pytest.approx(0.8)


def test_recency_halves_every_half_life() -> None:
    now = utc_now()
    assert recency_decay(now, 30, now) == pytest.approx(1.0)
    assert recency_decay(now - timedelta(days=30), 30, now) == pytest.approx(0.5)
    assert recency_decay(now - timedelta(days=60), 30, now) == pytest.approx(0.25)
    assert recency_decay(now + timedelta(days=1), 30, now) == pytest.approx(1.0)  # future clamps


def test_composite_score_formula_and_reasons() -> None:
    now = utc_now()
    config = MemoryConfig(semantic_weight=0.5, recency_weight=0.3, importance_weight=0.2, recency_half_life_days=10)
    record = MemoryRecord(content="x", importance=0.9, created_at=now - timedelta(days=10))
    score, reasons = compute_composite_score(record, 0.8, config, now)
    assert score == pytest.approx(0.5 * 0.8 + 0.3 * 0.5 + 0.2 * 0.9)
    assert reasons == ["semantic", "importance"]  # decay exactly 0.5 is not "recent"

    fresh = MemoryRecord(content="y", importance=0.2, created_at=now)
    score, reasons = compute_composite_score(fresh, 0.4, config, now)
    assert score == pytest.approx(0.5 * 0.4 + 0.3 * 1.0 + 0.2 * 0.2)
    assert reasons == ["recency"]


def test_weights_change_the_ranking() -> None:
    now = utc_now()
    old_relevant = MemoryRecord(content="a", importance=0.5, created_at=now - timedelta(days=90))
    new_weak = MemoryRecord(content="b", importance=0.5, created_at=now)
    semantic = MemoryConfig(semantic_weight=1.0, recency_weight=0.0, importance_weight=0.0)
    recency = MemoryConfig(semantic_weight=0.1, recency_weight=0.9, importance_weight=0.0, recency_half_life_days=7)
    assert compute_composite_score(old_relevant, 0.95, semantic, now)[0] > compute_composite_score(new_weak, 0.6, semantic, now)[0]
    assert compute_composite_score(old_relevant, 0.95, recency, now)[0] < compute_composite_score(new_weak, 0.6, recency, now)[0]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(None, "/"), ("", "/"), ("/", "/"), ("project//alpha/", "/project/alpha"), ("./a/./b", "/a/b"), ("a\\b", "/a/b")],
)
def test_normalize_scope(raw: str | None, expected: str) -> None:
    assert normalize_scope(raw) == expected


def test_scope_helpers() -> None:
    with pytest.raises(ValueError, match=r"\.\."):
        normalize_scope("/a/../b")
    assert join_scope("/agent/x", "notes") == "/agent/x/notes"
    assert join_scope("/agent/x", "/notes") == "/agent/x/notes"
    assert join_scope(None, "a") == "/a"
    assert join_scope("/a", None) == "/a"
    assert scope_ancestors("/a/b") == ["/", "/a", "/a/b"]
    assert scope_ancestors("/") == ["/"]
    assert scope_depth("/") == 0 and scope_depth("/a/b") == 2
    assert is_within("/a/b/c", "/a/b") and is_within("/a/b", "/a/b") and is_within("/x", "/")
    assert not is_within("/a/bc", "/a/b")


def test_record_datetimes_are_utc_aware() -> None:
    from datetime import datetime

    record = MemoryRecord(content="x", created_at=datetime(2024, 1, 1))
    assert record.created_at.tzinfo is not None
    assert "embedding" not in record.model_dump()
