"""The save pipeline behind ``remember`` / ``remember_many`` (one batch at a time).

1. embed every item in ONE embedder call;
2. drop near-exact duplicates inside the batch (cosine >= batch_dedup_threshold; no LLM);
3. find similar stored records per item (same source, same subtree);
4. ask the LLM, concurrently, for the fields the caller left out and, where a
   stored record is at least ``consolidation_threshold`` similar, for a
   keep/update/delete/insert_new plan (identical text is recognised without an LLM);
5. apply the plans (re-embedding updated texts in one call) and write all new
   records in one upsert.

Analysis failures degrade inside :class:`~crewgraph.memory.analysis.Analyst`;
embedder and storage errors propagate, so the caller learns the save failed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from crewgraph._internal.sync import run_sync
from crewgraph.memory.analysis import Analyst, ConsolidationPlan, MemoryAnalysis
from crewgraph.memory.scopes import join_scope, normalize_scope
from crewgraph.memory.storage.backend import StorageBackend
from crewgraph.memory.types import MemoryConfig, MemoryRecord, utc_now

__all__ = ["SaveRequest", "cosine_matrix", "encode_batch"]

_logger = logging.getLogger("crewgraph.memory")
Embed = Callable[[list[str]], list[list[float]]]
_MAX_CONTEXT_SCOPES = 100


@dataclass
class SaveRequest:
    """One ``remember``/``remember_many`` call; ``root`` is the structural root (views, root_scope)."""

    contents: list[str]
    scope: str | None = None
    root: str | None = None
    categories: list[str] | None = None
    metadata: dict[str, Any] | None = None
    importance: float | None = None
    source: str | None = None
    private: bool = False

    @property
    def fields_given(self) -> bool:
        return self.scope is not None and self.categories is not None and self.importance is not None

    @property
    def search_root(self) -> str | None:
        if self.scope is not None:
            return join_scope(self.root, self.scope)
        return normalize_scope(self.root) if self.root else None


@dataclass
class _Item:
    content: str
    embedding: list[float]
    similar: list[tuple[MemoryRecord, float]] = field(default_factory=list)
    analysis: MemoryAnalysis | None = None
    plan: ConsolidationPlan = field(default_factory=ConsolidationPlan)
    duplicate_of: MemoryRecord | None = None
    result: MemoryRecord | None = None


def cosine_matrix(vectors: list[list[float]]) -> Any:
    """Pairwise cosine similarities (numpy array)."""
    import numpy as np

    m = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    m = m / np.clip(norms, 1e-12, None)
    return m @ m.T


def _dedup(items: list[_Item], threshold: float) -> list[_Item]:
    if len(items) < 2:
        return items
    sims = cosine_matrix([it.embedding for it in items])
    kept: list[int] = []
    for j in range(len(items)):
        if not any(sims[i, j] >= threshold for i in kept):
            kept.append(j)
    return [items[j] for j in kept]


def _resolve_scope(req: SaveRequest, analysis: MemoryAnalysis | None) -> str:
    if req.scope is not None:
        return join_scope(req.root, req.scope)
    suggested = analysis.suggested_scope if analysis else "/"
    try:
        return join_scope(req.root, suggested)
    except ValueError:  # an LLM-made path with '..' is refused, not trusted
        return normalize_scope(req.root)


def _new_record(req: SaveRequest, item: _Item, config: MemoryConfig) -> MemoryRecord:
    analysis = item.analysis
    metadata = dict(req.metadata or {})
    if analysis is not None:
        for key, value in analysis.extracted_metadata.model_dump().items():
            if value and key not in metadata:
                metadata[key] = value
    if req.importance is not None:
        importance = req.importance
    elif analysis is not None:
        importance = analysis.importance
    else:
        importance = config.default_importance
    return MemoryRecord(
        content=item.content,
        scope=_resolve_scope(req, analysis),
        categories=list(req.categories if req.categories is not None else (analysis.categories if analysis else [])),
        metadata=metadata,
        importance=min(max(float(importance), 0.0), 1.0),
        embedding=item.embedding,
        source=req.source,
        private=req.private,
    )


def _find_similar(req: SaveRequest, items: list[_Item], storage: StorageBackend, config: MemoryConfig) -> None:
    if config.consolidation_threshold >= 1.0:
        return
    for item in items:
        # Only the same source's records are candidates: a private memory is never merged
        # into (or shown in a prompt next to) another source's records.
        item.similar = storage.search(
            item.embedding,
            scope_prefix=req.search_root,
            limit=config.consolidation_limit,
            source=req.source or "",
        )
        exact_scope = join_scope(req.root, req.scope) if req.scope is not None else None
        for record, _ in item.similar:
            if exact_scope is not None and record.scope != exact_scope:
                continue
            if record.content.strip() == item.content and record.private == req.private:
                item.duplicate_of = record
                break


async def _analyze(
    req: SaveRequest,
    need_fields: list[_Item],
    need_plan: list[_Item],
    analyst: Analyst,
    storage: StorageBackend,
    config: MemoryConfig,
) -> None:
    scopes: list[str] = []
    categories: list[str] = []
    if need_fields:
        root = normalize_scope(req.root)
        scopes = sorted(storage.scope_counts(root))[:_MAX_CONTEXT_SCOPES]
        categories = sorted(storage.list_categories(root if root != "/" else None))[:_MAX_CONTEXT_SCOPES]
    sem = asyncio.Semaphore(8)

    async def fields(it: _Item) -> None:
        async with sem:
            it.analysis = await analyst.analyze_for_save(it.content, scopes, categories)

    async def plan(it: _Item) -> None:
        async with sem:
            similar = [r for r, s in it.similar if s >= config.consolidation_threshold]
            it.plan = await analyst.plan_consolidation(it.content, similar)

    await asyncio.gather(*(fields(it) for it in need_fields), *(plan(it) for it in need_plan))


def _apply_plans(items: list[_Item], storage: StorageBackend, embed: Embed) -> None:
    deleted: set[str] = set()
    updates: list[tuple[_Item, MemoryRecord, str]] = []
    for item in items:
        known = {r.id: r for r, _ in item.similar}
        for action in item.plan.actions:
            record = known.get(action.record_id)
            if record is None or record.id in deleted:
                continue  # the model named a record it was not shown: ignore it
            if action.action == "delete":
                deleted.add(record.id)
            elif action.action == "update" and action.new_content and action.new_content.strip():
                updates.append((item, record, action.new_content.strip()))
    if deleted:
        storage.delete(record_ids=sorted(deleted))
    updates = [u for u in updates if u[1].id not in deleted]
    if updates:
        vectors = embed([text for _, _, text in updates])
        for (item, record, text), vector in zip(updates, vectors, strict=True):
            updated = record.model_copy(update={"content": text, "embedding": vector, "last_accessed": utc_now()})
            storage.update(updated)
            if item.result is None:
                item.result = updated


def encode_batch(
    req: SaveRequest,
    *,
    storage: StorageBackend,
    embed: Embed,
    analyst: Analyst,
    config: MemoryConfig,
) -> list[MemoryRecord]:
    """Run the pipeline; returns one record per surviving item (new, updated or the duplicate kept)."""
    texts = [c.strip() for c in req.contents if c and c.strip()]
    if not texts:
        return []
    vectors = embed(texts)
    items = _dedup([_Item(t, v) for t, v in zip(texts, vectors, strict=True)], config.batch_dedup_threshold)
    _find_similar(req, items, storage, config)
    need_fields = [it for it in items if it.duplicate_of is None and not req.fields_given]
    need_plan = [
        it
        for it in items
        if it.duplicate_of is None and it.similar and it.similar[0][1] >= config.consolidation_threshold
    ]
    if need_fields or need_plan:
        run_sync(_analyze(req, need_fields, need_plan, analyst, storage, config))
    _apply_plans(items, storage, embed)
    new: list[MemoryRecord] = []
    for item in items:
        if item.duplicate_of is not None:
            item.result = item.duplicate_of
        elif item.plan.insert_new:
            item.result = _new_record(req, item, config)
            new.append(item.result)
        elif item.result is None and item.similar:
            item.result = item.similar[0][0]
    storage.save(new)
    return [it.result for it in items if it.result is not None]
