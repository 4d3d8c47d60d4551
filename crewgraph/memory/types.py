"""Plain data of the unified memory: records, matches, scope info, scoring config.

Kept free of storage and model imports so ``import crewgraph.memory`` stays
cheap; the composite score lives here because shallow recall, deep recall
and the tests must all compute it the same way.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from uuid import uuid4

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "MemoryConfig",
    "MemoryMatch",
    "MemoryRecord",
    "ScopeInfo",
    "compute_composite_score",
    "embed_text",
    "embed_texts",
    "recency_decay",
    "similarity_from_distance",
    "utc_now",
]


def utc_now() -> datetime:
    """Timezone-aware UTC now (records never carry naive datetimes)."""
    return datetime.now(UTC)


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


class MemoryRecord(BaseModel):
    """One stored memory. ``embedding`` is kept out of dumps and reprs (it is large)."""

    model_config = ConfigDict(validate_assignment=False)

    id: str = Field(default_factory=lambda: str(uuid4()))
    content: str
    scope: str = "/"
    categories: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    created_at: datetime = Field(default_factory=utc_now)
    last_accessed: datetime = Field(default_factory=utc_now)
    embedding: list[float] | None = Field(default=None, exclude=True, repr=False)
    source: str | None = None
    private: bool = False

    @field_validator("created_at", "last_accessed")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        return _aware(value)


class MemoryMatch(BaseModel):
    """A recalled record with its composite score and why it ranked where it did."""

    record: MemoryRecord
    score: float
    match_reasons: list[str] = Field(default_factory=list)
    evidence_gaps: list[str] = Field(default_factory=list)

    def format(self) -> str:
        """A short human/LLM-readable line (plus categories and metadata when present)."""
        lines = [f"- (score={self.score:.2f}) {self.record.content}"]
        if self.record.categories:
            lines.append(f"  categories: {', '.join(self.record.categories)}")
        for key, value in self.record.metadata.items():
            if value not in (None, [], {}, ""):
                lines.append(f"  {key}: {value}")
        return "\n".join(lines)


class ScopeInfo(BaseModel):
    """What :meth:`Memory.info` reports about one scope (counts include subscopes)."""

    path: str
    record_count: int = 0
    categories: list[str] = Field(default_factory=list)
    oldest_record: datetime | None = None
    newest_record: datetime | None = None
    child_scopes: list[str] = Field(default_factory=list)


class _MemoryKnobs(BaseModel):
    """The tuning knobs users set as ``Memory(...)`` keyword arguments.

    Declared once for both :class:`Memory` (where users set them) and
    :class:`MemoryConfig` (what the pipelines receive), so a default or a
    bound cannot differ between the two.
    """

    recency_weight: float = Field(default=0.3, ge=0.0)
    semantic_weight: float = Field(default=0.5, ge=0.0)
    importance_weight: float = Field(default=0.2, ge=0.0)
    recency_half_life_days: float = Field(default=30, gt=0)
    consolidation_threshold: float = Field(default=0.85, ge=0.0, le=1.0)
    consolidation_limit: int = Field(default=5, ge=1)
    default_importance: float = Field(default=0.5, ge=0.0, le=1.0)
    batch_dedup_threshold: float = Field(default=0.98, ge=0.0, le=1.0)
    confidence_threshold_high: float = Field(default=0.8, ge=0.0, le=1.0)
    confidence_threshold_low: float = Field(default=0.5, ge=0.0, le=1.0)
    complex_query_threshold: float = Field(default=0.7, ge=0.0, le=1.0)
    exploration_budget: int = Field(default=1, ge=0)
    query_analysis_threshold: int = Field(default=200, ge=0)


class MemoryConfig(_MemoryKnobs):
    """The knobs of scoring, consolidation and deep recall, passed around as one object.

    Users set these as ``Memory(...)`` keyword arguments; this model exists so
    the encoding and recall pipelines receive a single validated value.
    ``recall_oversample_factor`` is internal (not a ``Memory`` argument).
    """

    recall_oversample_factor: int = Field(default=2, ge=1)


def similarity_from_distance(distance: float) -> float:
    """``1 / (1 + distance)``: 1.0 for an identical vector, falling towards 0 as it drifts."""
    return 1.0 / (1.0 + max(distance, 0.0))


def recency_decay(created_at: datetime, half_life_days: float, now: datetime | None = None) -> float:
    """``0.5 ** (age_days / half_life_days)``: 1.0 today, 0.5 at one half-life."""
    current = now or utc_now()
    age_days = max((current - _aware(created_at)).total_seconds() / 86400.0, 0.0)
    return float(0.5 ** (age_days / half_life_days))


def compute_composite_score(
    record: MemoryRecord,
    semantic_score: float,
    config: MemoryConfig,
    now: datetime | None = None,
) -> tuple[float, list[str]]:
    """``semantic_weight*semantic_score + recency_weight*decay + importance_weight*importance``.

    ``match_reasons`` names the signals that pulled the record up: ``semantic``
    when similarity is at least 0.5 (closer than orthogonal), ``recency`` when
    the decay is above one half-life, ``importance`` when importance is above 0.5.
    """
    decay = recency_decay(record.created_at, config.recency_half_life_days, now)
    score = (
        config.semantic_weight * semantic_score
        + config.recency_weight * decay
        + config.importance_weight * record.importance
    )
    reasons: list[str] = []
    if semantic_score >= 0.5:
        reasons.append("semantic")
    if decay > 0.5:
        reasons.append("recency")
    if record.importance > 0.5:
        reasons.append("importance")
    return score, reasons


def embed_texts(embedder: Any, texts: list[str]) -> list[list[float]]:
    """``texts`` embedded in one call of ``embedder`` (a callable ``list[str] -> vectors``, or an
    object with ``embed_documents``/``embed``), as lists of floats; an error when it returns a
    vector per text that is missing or empty."""
    if not texts:
        return []
    call = embedder if callable(embedder) else getattr(embedder, "embed_documents", None) or getattr(embedder, "embed", None)
    if call is None:
        raise TypeError(f"{type(embedder).__name__} is not an embedder: give a callable list[str] -> list[list[float]]")
    raw = call(list(texts))
    vectors = [[float(x) for x in (v.tolist() if hasattr(v, "tolist") else v)] for v in raw]
    if len(vectors) != len(texts) or any(not v for v in vectors):
        raise ValueError(f"the embedder returned {len(vectors)} vectors (some empty) for {len(texts)} texts")
    return vectors


def embed_text(embedder: Any, text: str) -> list[float]:
    """One text's embedding (:func:`embed_texts` of ``[text]``)."""
    return embed_texts(embedder, [text])[0]
