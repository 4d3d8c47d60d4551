"""Deep recall: LLM skip for short queries, query analysis, scope selection, confidence
routing and exploration, and the fallback to plain vector search when the LLM fails."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from memory_helpers import WordHashEmbedder, explicit

from crewgraph.memory import Memory
from crewgraph.memory._recall import route
from crewgraph.memory.analysis import ExplorationResult, QueryAnalysis
from crewgraph.memory.types import MemoryConfig
from crewgraph.testing import FakeLLM

MakeMemory = Callable[..., Memory]
LONG = "Summarize every architecture decision this quarter about the storage layer " * 4  # > 200 chars


@pytest.mark.parametrize(
    ("confidence", "complexity", "budget", "expected"),
    [
        (0.9, "simple", 1, "synthesize"),  # >= high
        (0.8, "simple", 1, "synthesize"),  # == high
        (0.6, "simple", 1, "synthesize"),  # between low and high
        (0.4, "simple", 1, "explore"),  # < low
        (0.4, "simple", 0, "synthesize"),  # no budget
        (0.65, "complex", 1, "explore"),  # complex below complex_query_threshold
        (0.75, "complex", 1, "synthesize"),
    ],
)
def test_routing(confidence: float, complexity: str, budget: int, expected: str) -> None:
    assert route(confidence, complexity, budget, MemoryConfig()) == expected


def _memory(make_memory: MakeMemory, llm: FakeLLM, **kw: object) -> Memory:
    m = make_memory(llm=llm, **kw)
    m.remember("storage layer uses postgres", **explicit(scope="/project/alpha/architecture"))
    m.remember("frontend uses react", **explicit(scope="/project/beta"))
    m.remember("lunch menu on friday", **explicit(scope="/office"))
    return m


def test_short_queries_skip_the_llm_even_in_deep_mode(make_memory: MakeMemory) -> None:
    llm = FakeLLM([])
    m = _memory(make_memory, llm)
    results = m.recall("what does the storage layer use?", depth="deep")
    assert results[0].record.content == "storage layer uses postgres"
    assert llm.call_count == 0


def test_long_queries_are_distilled_and_scoped(make_memory: MakeMemory, embedder: WordHashEmbedder) -> None:
    llm = FakeLLM(
        [
            QueryAnalysis(
                recall_queries=["storage layer", "database"],
                suggested_scopes=["/project/alpha", "/not/existing", "/../x"],
                complexity="simple",
            )
        ]
    )
    m = _memory(make_memory, llm, confidence_threshold_low=0.0)
    embedder.calls.clear()
    results = m.recall(LONG, depth="deep", limit=5)
    assert [r.record.content for r in results] == ["storage layer uses postgres"]  # only /project/alpha
    assert llm.call_count == 1 and llm.calls[0].response_model is QueryAnalysis
    assert "/project/alpha/architecture" in llm.calls[0].prompt  # available scopes offered
    assert embedder.calls == [["storage layer", "database"]]  # one batched embedding call


def test_failed_query_analysis_falls_back_to_vector_search(make_memory: MakeMemory) -> None:
    llm = FakeLLM([RuntimeError("down")])
    m = _memory(make_memory, llm, exploration_budget=0)
    results = m.recall(LONG, depth="deep", limit=3)
    assert {r.record.content for r in results} == {
        "storage layer uses postgres",
        "frontend uses react",
        "lunch menu on friday",
    }
    assert results[0].record.content == "storage layer uses postgres"


def test_low_confidence_explores_with_follow_up_queries(make_memory: MakeMemory) -> None:
    llm = FakeLLM([ExplorationResult(follow_up_queries=["lunch menu"], missing="no date for the menu")])
    m = _memory(make_memory, llm, recency_weight=0.0, importance_weight=0.0, confidence_threshold_low=0.99)
    results = m.recall("friday plans", depth="deep", limit=1)
    assert llm.call_count == 1 and llm.calls[0].response_model is ExplorationResult
    assert results[0].record.content == "lunch menu on friday"
    assert results[0].evidence_gaps == ["no date for the menu"]


def test_exploration_budget_bounds_the_rounds(make_memory: MakeMemory) -> None:
    llm = FakeLLM([], default=ExplorationResult(follow_up_queries=["nothing relevant"]))
    m = _memory(make_memory, llm, recency_weight=0.0, importance_weight=0.0, confidence_threshold_low=0.99, exploration_budget=3)
    m.recall("unrelated words", depth="deep")
    assert llm.call_count == 3
    llm2 = FakeLLM([])
    m2 = make_memory(llm=llm2, exploration_budget=0, confidence_threshold_low=0.99, storage=m.storage)
    m.close()
    m2.recall("unrelated words", depth="deep")
    assert llm2.call_count == 0


def test_failed_exploration_still_returns_results(make_memory: MakeMemory) -> None:
    llm = FakeLLM([RuntimeError("down")])
    m = _memory(make_memory, llm, confidence_threshold_low=0.99)
    results = m.recall("storage layer", depth="deep")
    assert results and results[0].record.content == "storage layer uses postgres"
    assert llm.call_count == 1


def test_complex_queries_explore_below_the_complex_threshold(make_memory: MakeMemory) -> None:
    llm = FakeLLM(
        [
            QueryAnalysis(recall_queries=["storage layer postgres"], complexity="complex"),
            ExplorationResult(follow_up_queries=["frontend"], missing=None),
        ]
    )
    # confidence ~0.9 (exact phrase) is above low/high but below a strict complex threshold
    m = _memory(make_memory, llm, complex_query_threshold=0.99)
    results = m.recall(LONG, depth="deep", limit=5)
    assert llm.call_count == 2
    assert "frontend uses react" in {r.record.content for r in results}


def test_shallow_never_calls_the_llm(make_memory: MakeMemory) -> None:
    llm = FakeLLM([])
    m = _memory(make_memory, llm, confidence_threshold_low=0.99)
    m.recall(LONG, depth="shallow")
    assert llm.call_count == 0
    with pytest.raises(ValueError, match="depth"):
        m.recall("x", depth="medium")  # type: ignore[arg-type]


def test_time_hint_filters_but_never_hides_everything(make_memory: MakeMemory) -> None:
    llm = FakeLLM([QueryAnalysis(recall_queries=["storage layer"], time_filter="2999-01-01")])
    m = _memory(make_memory, llm, exploration_budget=0)
    assert m.recall(LONG, depth="deep")[0].record.content == "storage layer uses postgres"


def test_nothing_visible_means_no_exploration(make_memory: MakeMemory) -> None:
    llm = FakeLLM([])  # any call would fail the count below
    m = make_memory(llm=llm)
    assert m.recall("what database did we choose?", depth="deep") == []  # empty store
    m.remember("storage layer uses postgres", **explicit(scope="/project/alpha"))
    assert m.recall("what database?", scope="/project/beta", depth="deep") == []  # empty scope
    assert m.recall("what database?", categories=["nope"], depth="deep") == []
    assert llm.call_count == 0


def test_a_scope_choice_that_finds_nothing_falls_back_to_the_asked_scope(make_memory: MakeMemory) -> None:
    llm = FakeLLM([QueryAnalysis(recall_queries=["storage layer"], suggested_scopes=["/office"])])
    m = make_memory(llm=llm, exploration_budget=0)
    m.remember("storage layer uses postgres", **explicit(scope="/project/alpha", categories=["architecture"]))
    m.remember("lunch menu on friday", **explicit(scope="/office", categories=["food"]))
    # /office holds records, but none of this category: the analysis' choice finds nothing.
    found = m.recall(LONG, categories=["architecture"], depth="deep")
    assert [r.record.content for r in found] == ["storage layer uses postgres"]
    assert llm.call_count == 1
