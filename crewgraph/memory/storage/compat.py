"""Run a CrewAI-style storage backend (the older, smaller protocol) under Memory.

CrewAI's ``StorageBackend.search`` knows only ``scope_prefix``, ``categories``,
``metadata_filter``, ``limit`` and ``min_score``, and there is no
``scope_counts``. A user porting a custom backend (say a MongoDB one) should
not have to rewrite it, so :func:`adapt_backend` wraps such an object: the
filters it cannot apply (several scopes, source, privacy, time) are applied
here on an oversampled result, and scope counts are built from
``list_scopes`` + ``count``. Backends that implement the full protocol are
returned untouched.
"""

from __future__ import annotations

import inspect
from datetime import datetime
from typing import Any

from crewgraph.memory.scopes import is_within, normalize_scope
from crewgraph.memory.types import MemoryRecord

__all__ = ["LegacyBackendAdapter", "adapt_backend"]

_OVERSAMPLE = 4
_MAX_SCOPES = 2000


def _full_protocol(backend: Any) -> bool:
    if not callable(getattr(backend, "scope_counts", None)):
        return False
    try:
        params = inspect.signature(backend.search).parameters
    except (TypeError, ValueError):
        return False
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return True
    return {"scopes", "source", "include_private", "created_after"} <= set(params)


def adapt_backend(backend: Any) -> Any:
    """``backend`` itself if it speaks the full protocol, else a :class:`LegacyBackendAdapter`."""
    return backend if _full_protocol(backend) else LegacyBackendAdapter(backend)


class LegacyBackendAdapter:
    """The full StorageBackend protocol on top of a CrewAI-protocol backend."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:  # save, delete, update, get_record, list_records...
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return f"LegacyBackendAdapter({self.inner!r})"

    def search(
        self,
        query_embedding: list[float],
        scope_prefix: str | None = None,
        categories: list[str] | None = None,
        metadata_filter: dict[str, Any] | None = None,
        limit: int = 10,
        min_score: float = 0.0,
        *,
        scopes: list[str] | None = None,
        source: str | None = None,
        include_private: bool = True,
        created_after: datetime | None = None,
    ) -> list[tuple[MemoryRecord, float]]:
        roots = [normalize_scope(s) for s in scopes or []]
        prefix = scope_prefix if scope_prefix is not None else (roots[0] if len(roots) == 1 else None)
        narrowing = bool(roots) or source is not None or not include_private or created_after is not None
        hits = self.inner.search(
            query_embedding,
            scope_prefix=prefix,
            categories=categories,
            metadata_filter=metadata_filter,
            limit=limit * _OVERSAMPLE if narrowing else limit,
            min_score=min_score,
        )
        out: list[tuple[MemoryRecord, float]] = []
        for record, score in hits:
            if roots and not any(is_within(record.scope, r) for r in roots):
                continue
            if source is not None and (record.source or "") != source:
                continue
            if source is None and not include_private and record.private:
                continue
            if created_after is not None and record.created_at < created_after:
                continue
            out.append((record, score))
        return out[:limit]

    def scope_counts(self, scope_prefix: str | None = None) -> dict[str, int]:
        root = normalize_scope(scope_prefix)
        counts: dict[str, int] = {}
        frontier = [root]
        while frontier and len(counts) < _MAX_SCOPES:
            scope = frontier.pop()
            n = int(self.inner.count(None if scope == "/" else scope))
            if n:
                counts[scope] = n
                frontier.extend(self.inner.list_scopes(scope))
        return counts

    def close(self) -> None:
        closer = getattr(self.inner, "close", None)
        if callable(closer):
            closer()
