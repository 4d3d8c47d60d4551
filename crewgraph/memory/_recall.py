"""Recall: shallow (one vector search) and deep (analysis, scope selection, confidence routing).

Deep recall, step by step:

1. queries shorter than ``query_analysis_threshold`` skip the LLM; longer ones
   are distilled into 1-3 search phrases, candidate scopes and a time hint;
2. all phrases are embedded in ONE call and searched over the candidate
   scopes (one filtered Qdrant query per phrase);
3. confidence = best composite score. Route: a *complex* query below
   ``complex_query_threshold``, or any query below ``confidence_threshold_low``,
   explores (if budget remains); at or above ``confidence_threshold_high`` or
   in between, results are synthesised;
4. an exploration round asks the LLM what is missing and for new phrases,
   searches them over the whole allowed subtree, merges, and routes again
   (``exploration_budget`` rounds at most). A search that finds nothing at all
   (nothing is visible under the filters) ends the recall without exploring.

If the LLM fails anywhere, recall continues as a plain vector search.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from crewgraph._internal.sync import run_sync
from crewgraph.memory.analysis import Analyst, QueryAnalysis
from crewgraph.memory.scopes import is_within, normalize_scope
from crewgraph.memory.storage.backend import StorageBackend
from crewgraph.memory.types import MemoryConfig, MemoryMatch, MemoryRecord, compute_composite_score

__all__ = ["RecallRequest", "deep_recall", "route", "shallow_recall"]

_logger = logging.getLogger("crewgraph.memory")
Embed = Callable[[list[str]], list[list[float]]]


@dataclass
class RecallRequest:
    """A recall over the union of ``roots`` subtrees ([] = everything visible)."""

    query: str
    limit: int = 10
    roots: list[str] = field(default_factory=list)
    categories: list[str] | None = None
    source: str | None = None
    include_private: bool = False


def _search(
    storage: StorageBackend,
    req: RecallRequest,
    vector: list[float],
    roots: list[str],
    limit: int,
    created_after: datetime | None = None,
) -> list[tuple[MemoryRecord, float]]:
    hits = storage.search(
        vector,
        categories=req.categories or None,
        limit=limit,
        scopes=roots or None,
        source=req.source,
        include_private=req.include_private,
        created_after=created_after,
    )
    # Defence in depth for user-supplied backends: never hand back a record the caller may not see.
    return [(r, s) for r, s in hits if not r.private or req.include_private or r.source == req.source]


def _rank(found: dict[str, tuple[MemoryRecord, float]], config: MemoryConfig, limit: int) -> list[MemoryMatch]:
    matches: list[MemoryMatch] = []
    for record, similarity in found.values():
        score, reasons = compute_composite_score(record, similarity, config)
        matches.append(MemoryMatch(record=record, score=score, match_reasons=reasons))
    matches.sort(key=lambda m: m.score, reverse=True)
    return matches[:limit]


def _merge(found: dict[str, tuple[MemoryRecord, float]], hits: list[tuple[MemoryRecord, float]]) -> None:
    for record, similarity in hits:
        best = found.get(record.id)
        if best is None or similarity > best[1]:
            found[record.id] = (record, similarity)


def shallow_recall(req: RecallRequest, *, storage: StorageBackend, embed: Embed, config: MemoryConfig) -> list[MemoryMatch]:
    """One embedding, one filtered search, composite re-ranking."""
    if req.limit <= 0 or not req.query.strip():
        return []
    vector = embed([req.query])[0]
    found: dict[str, tuple[MemoryRecord, float]] = {}
    _merge(found, _search(storage, req, vector, req.roots, req.limit * config.recall_oversample_factor))
    return _rank(found, config, req.limit)


def route(confidence: float, complexity: str, budget: int, config: MemoryConfig) -> str:
    """``"explore"`` or ``"synthesize"`` (see the module docstring)."""
    if budget <= 0:
        return "synthesize"
    if complexity == "complex" and confidence < config.complex_query_threshold:
        return "explore"
    if confidence >= config.confidence_threshold_high:
        return "synthesize"
    if confidence < config.confidence_threshold_low:
        return "explore"
    return "synthesize"


def _candidate_roots(req: RecallRequest, analysis: QueryAnalysis | None, available: set[str]) -> list[str]:
    allowed = [normalize_scope(r) for r in req.roots] or ["/"]
    if analysis is None:
        return list(req.roots)
    picked: list[str] = []
    for raw in analysis.suggested_scopes:
        try:
            scope = normalize_scope(raw)
        except ValueError:
            continue
        if scope in available and any(is_within(scope, a) for a in allowed) and scope not in picked:
            picked.append(scope)
    return picked or list(req.roots)


def _time_cutoff(analysis: QueryAnalysis | None) -> datetime | None:
    if analysis is None or not analysis.time_filter:
        return None
    try:
        cutoff = datetime.fromisoformat(analysis.time_filter.strip())
    except ValueError:
        return None
    return cutoff if cutoff.tzinfo else cutoff.replace(tzinfo=UTC)


def deep_recall(
    req: RecallRequest,
    *,
    storage: StorageBackend,
    embed: Embed,
    analyst: Analyst,
    config: MemoryConfig,
) -> list[MemoryMatch]:
    """Analysis (long queries only), multi-phrase search, confidence-routed exploration."""
    if req.limit <= 0 or not req.query.strip():
        return []
    analysis: QueryAnalysis | None = None
    available: set[str] = set()
    if len(req.query) >= config.query_analysis_threshold:
        for root in req.roots or ["/"]:
            available.update(storage.scope_counts(root))
        analysis = run_sync(analyst.analyze_query(req.query, sorted(available)[:100]))
    queries = [q for q in (analysis.recall_queries if analysis else []) if q and q.strip()][:3] or [req.query]
    roots = _candidate_roots(req, analysis, available)
    cutoff = _time_cutoff(analysis)
    fetch = req.limit * config.recall_oversample_factor

    found: dict[str, tuple[MemoryRecord, float]] = {}
    vectors = embed(queries)
    for vector in vectors:
        _merge(found, _search(storage, req, vector, roots, fetch, cutoff))
    if not found and (cutoff is not None or roots != req.roots):
        # A wrong time hint or scope choice must not hide everything: search as asked.
        for vector in vectors:
            _merge(found, _search(storage, req, vector, req.roots, fetch))
    if not found:
        # The search has no similarity floor, so nothing found means nothing is visible
        # under these filters: new phrases cannot find anything, no LLM round is spent.
        return []

    gaps: list[str] = []
    budget = config.exploration_budget
    complexity = analysis.complexity if analysis else "simple"
    while True:
        ranked = _rank(found, config, fetch)
        confidence = ranked[0].score if ranked else 0.0
        if route(confidence, complexity, budget, config) != "explore":
            break
        budget -= 1
        excerpts = [m.record.content[:500] for m in ranked[:5]]
        explored = run_sync(analyst.explore(req.query, excerpts))
        if explored is None:
            break
        if explored.missing and explored.missing.strip().lower() not in {"", "none", "null", "nothing"}:
            gaps.append(explored.missing.strip()[:300])
        follow = [q for q in explored.follow_up_queries if q and q.strip()][:3]
        if not follow:
            break
        for vector in embed(follow):
            _merge(found, _search(storage, req, vector, req.roots, fetch))

    results = _rank(found, config, req.limit)
    if gaps and results:
        results[0].evidence_gaps = gaps
    return results
