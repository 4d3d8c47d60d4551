"""What both Qdrant backends share: the payload layout, filters as data, the protocol logic.

The two engines (embedded ``qdrant_edge`` and ``qdrant_client``) expose the
same concepts under different classes, so the backends only implement a
handful of primitives (upsert, query, scroll, count, facet, delete) and this
base turns the :class:`StorageBackend` calls into them.

Payload layout (and why):

- ``scope_ancestors``: keyword list ``["/", "/a", "/a/b"]``. A subtree filter
  is then one exact keyword match, which is both exact (``MatchPrefix("/a/b")``
  would also match ``/a/bc``) and served by the keyword index.
- ``private``: integer 0/1, because qdrant-edge 0.9 cannot filter booleans.
- ``source``: keyword, ``""`` for none. ``categories``: keyword list.
- ``created_ts``: float epoch seconds, indexed, for newest-first and time filters.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from crewgraph.memory.scopes import normalize_scope, scope_ancestors, scope_depth
from crewgraph.memory.storage.backend import EmbeddingDimensionMismatchError
from crewgraph.memory.types import MemoryRecord, ScopeInfo, similarity_from_distance

__all__ = [
    "FACET_LIMIT",
    "INDEXES",
    "VECTOR_NAME",
    "Cond",
    "QdrantStorageBase",
    "RecordFilter",
    "from_payload",
    "point_id",
    "to_payload",
]

VECTOR_NAME = "memory"
FACET_LIMIT = 100_000
_ID_NAMESPACE = uuid.UUID("6f1c2a52-8d8e-4f43-9a55-1f3f1c0b7a11")

INDEXES: dict[str, str] = {
    "scope_ancestors": "keyword",
    "categories": "keyword",
    "source": "keyword",
    "record_id": "keyword",
    "private": "integer",
    "created_ts": "float",
}
"""Payload indexes every backend creates: field -> kind (keyword | integer | float)."""


@dataclass(frozen=True)
class Cond:
    """One backend-neutral filter condition.

    ``op``: ``eq`` (value), ``any`` (values), ``range`` (gte/lt on a float field).
    """

    op: str
    key: str
    value: Any = None
    gte: float | None = None
    lt: float | None = None


@dataclass
class RecordFilter:
    """Everything a caller may filter records by; turned into must-conditions."""

    scopes: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    source: str | None = None
    include_private: bool = True
    record_ids: list[str] = field(default_factory=list)
    older_than: datetime | None = None
    created_after: datetime | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def conditions(self) -> list[Cond]:
        conds: list[Cond] = []
        roots = sorted({normalize_scope(s) for s in self.scopes})
        if roots and "/" not in roots:
            if len(roots) == 1:
                conds.append(Cond("eq", "scope_ancestors", roots[0]))
            else:
                conds.append(Cond("any", "scope_ancestors", roots))
        if self.categories:
            conds.append(Cond("any", "categories", list(self.categories)))
        if self.source is not None:
            conds.append(Cond("eq", "source", self.source))
        elif not self.include_private:
            conds.append(Cond("eq", "private", 0))
        if self.record_ids:
            conds.append(Cond("any", "record_id", list(self.record_ids)))
        if self.older_than is not None:
            conds.append(Cond("range", "created_ts", lt=_ts(self.older_than)))
        if self.created_after is not None:
            conds.append(Cond("range", "created_ts", gte=_ts(self.created_after)))
        for key, value in self.metadata.items():
            if isinstance(value, (list, tuple)):
                conds.append(Cond("any", f"metadata.{key}", list(value)))
            else:
                conds.append(Cond("eq", f"metadata.{key}", value))
        return conds


def _ts(value: datetime) -> float:
    aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return aware.timestamp()


def point_id(record_id: str) -> str:
    """Qdrant ids must be UUIDs or integers: UUID record ids are used as is, others hashed."""
    try:
        return str(uuid.UUID(record_id))
    except ValueError:
        return str(uuid.uuid5(_ID_NAMESPACE, record_id))


def to_payload(record: MemoryRecord) -> dict[str, Any]:
    scope = normalize_scope(record.scope)
    return {
        "record_id": record.id,
        "content": record.content,
        "scope": scope,
        "scope_ancestors": scope_ancestors(scope),
        "categories": list(record.categories),
        "metadata": dict(record.metadata),
        "importance": float(record.importance),
        "created_at": record.created_at.isoformat(),
        "created_ts": record.created_at.timestamp(),
        "last_accessed": record.last_accessed.isoformat(),
        "source": record.source or "",
        "private": 1 if record.private else 0,
    }


def _parse_dt(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def from_payload(payload: dict[str, Any], vector: list[float] | None = None) -> MemoryRecord:
    # model_construct: the payload was written by to_payload, so re-validating it on
    # every search hit would only cost time on the recall hot path.
    return MemoryRecord.model_construct(
        id=str(payload["record_id"]),
        content=str(payload.get("content", "")),
        scope=str(payload.get("scope", "/")),
        categories=list(payload.get("categories") or []),
        metadata=dict(payload.get("metadata") or {}),
        importance=float(payload.get("importance", 0.5)),
        created_at=_parse_dt(payload["created_at"]),
        last_accessed=_parse_dt(payload.get("last_accessed") or payload["created_at"]),
        embedding=vector,
        source=payload.get("source") or None,
        private=bool(payload.get("private", 0)),
    )


class QdrantStorageBase(ABC):
    """The :class:`StorageBackend` methods, written once over a few engine primitives."""

    _where: str = "the configured Qdrant store"
    _remove: str = ""

    # -- primitives ---------------------------------------------------------------
    @abstractmethod
    def _vector_size(self) -> int | None:
        """Vector size of the existing store, or None when nothing was created yet."""

    @abstractmethod
    def _create(self, size: int) -> None:
        """Create the store (collection/shard and payload indexes) for ``size``-dim vectors."""

    @abstractmethod
    def _upsert(self, points: list[tuple[str, list[float], dict[str, Any]]]) -> None: ...

    @abstractmethod
    def _query(self, vector: list[float], conds: list[Cond], limit: int) -> list[tuple[dict[str, Any], float]]:
        """Nearest points as (payload, cosine similarity)."""

    @abstractmethod
    def _scroll(self, conds: list[Cond], limit: int, newest_first: bool | None) -> list[dict[str, Any]]: ...

    @abstractmethod
    def _count(self, conds: list[Cond]) -> int: ...

    @abstractmethod
    def _facet(self, key: str, conds: list[Cond]) -> dict[str, int]: ...

    @abstractmethod
    def _delete(self, conds: list[Cond]) -> None: ...

    @abstractmethod
    def _retrieve(self, ids: list[str], with_vector: bool) -> list[tuple[dict[str, Any], list[float] | None]]: ...

    @abstractmethod
    def _drop(self) -> None:
        """Remove the whole store, so a later save may create it with another vector size."""

    @abstractmethod
    def close(self) -> None: ...

    # -- helpers ------------------------------------------------------------------
    def _check_dim(self, got: int) -> bool:
        """True when the store exists (and has size ``got``); raises on a size mismatch."""
        size = self._vector_size()
        if size is None:
            return False
        if size != got:
            raise EmbeddingDimensionMismatchError(size, got, self._where, self._remove)
        return True

    @staticmethod
    def _scope_conds(scope_prefix: str | None) -> list[Cond]:
        return RecordFilter(scopes=[scope_prefix] if scope_prefix else []).conditions()

    # -- StorageBackend -----------------------------------------------------------
    def save(self, records: list[MemoryRecord]) -> None:
        if not records:
            return
        sizes = {len(r.embedding or []) for r in records}
        if 0 in sizes:
            raise ValueError("every record saved to memory storage needs an embedding")
        if len(sizes) > 1:
            raise ValueError(f"records in one save have different embedding sizes: {sorted(sizes)}")
        size = sizes.pop()
        if not self._check_dim(size):
            self._create(size)
        self._upsert([(point_id(r.id), list(r.embedding or []), to_payload(r)) for r in records])

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
        if limit <= 0 or not self._check_dim(len(query_embedding)):
            return []
        conds = self._scope_conds(scope_prefix)
        conds += RecordFilter(
            scopes=list(scopes or []),
            categories=list(categories or []),
            source=source,
            include_private=include_private,
            created_after=created_after,
            metadata=dict(metadata_filter or {}),
        ).conditions()
        out: list[tuple[MemoryRecord, float]] = []
        for payload, cosine in self._query(list(query_embedding), conds, limit):
            similarity = similarity_from_distance(1.0 - cosine)
            if similarity >= min_score:
                out.append((from_payload(payload), similarity))
        return out

    def delete(
        self,
        scope_prefix: str | None = None,
        categories: list[str] | None = None,
        record_ids: list[str] | None = None,
        older_than: datetime | None = None,
        metadata_filter: dict[str, Any] | None = None,
    ) -> int:
        if self._vector_size() is None:
            return 0
        conds = self._scope_conds(scope_prefix) + RecordFilter(
            categories=list(categories or []),
            record_ids=list(record_ids or []),
            older_than=older_than,
            metadata=dict(metadata_filter or {}),
        ).conditions()
        n = self._count(conds)
        if n:
            self._delete(conds)
        return n

    def update(self, record: MemoryRecord) -> None:
        if record.embedding is None:
            found = self._retrieve([point_id(record.id)], with_vector=True)
            if not found or not found[0][1]:
                raise KeyError(f"no memory record with id {record.id!r} to update")
            record = record.model_copy(update={"embedding": found[0][1]})
        self.save([record])

    def get_record(self, record_id: str) -> MemoryRecord | None:
        if self._vector_size() is None:
            return None
        found = self._retrieve([point_id(record_id)], with_vector=True)
        return from_payload(found[0][0], found[0][1]) if found else None

    def list_records(self, scope_prefix: str | None = None, limit: int = 200, offset: int = 0) -> list[MemoryRecord]:
        if self._vector_size() is None or limit <= 0:
            return []
        payloads = self._scroll(self._scope_conds(scope_prefix), offset + limit, newest_first=True)
        return [from_payload(p) for p in payloads[offset : offset + limit]]

    def scope_counts(self, scope_prefix: str | None = None) -> dict[str, int]:
        if self._vector_size() is None:
            return {}
        root = normalize_scope(scope_prefix)
        counts = self._facet("scope_ancestors", self._scope_conds(root))
        return {k: v for k, v in counts.items() if k == root or k.startswith(root.rstrip("/") + "/")}

    def list_scopes(self, parent: str = "/") -> list[str]:
        root = normalize_scope(parent)
        depth = scope_depth(root) + 1
        return sorted(s for s in self.scope_counts(root) if s != root and scope_depth(s) == depth)

    def list_categories(self, scope_prefix: str | None = None) -> dict[str, int]:
        if self._vector_size() is None:
            return {}
        return self._facet("categories", self._scope_conds(scope_prefix))

    def count(self, scope_prefix: str | None = None) -> int:
        if self._vector_size() is None:
            return 0
        return self._count(self._scope_conds(scope_prefix))

    def get_scope_info(self, scope: str) -> ScopeInfo:
        path = normalize_scope(scope)
        if self._vector_size() is None:
            return ScopeInfo(path=path)
        conds = self._scope_conds(path)
        total = self._count(conds)
        if not total:
            return ScopeInfo(path=path)
        newest = self._scroll(conds, 1, newest_first=True)
        oldest = self._scroll(conds, 1, newest_first=False)
        return ScopeInfo(
            path=path,
            record_count=total,
            categories=sorted(self._facet("categories", conds)),
            oldest_record=datetime.fromisoformat(oldest[0]["created_at"]) if oldest else None,
            newest_record=datetime.fromisoformat(newest[0]["created_at"]) if newest else None,
            child_scopes=self.list_scopes(path),
        )

    def reset(self, scope_prefix: str | None = None) -> None:
        root = normalize_scope(scope_prefix)
        if root == "/":
            self._drop()
        elif self._vector_size() is not None:
            self._delete(self._scope_conds(root))

    def touch_records(self, record_ids: list[str]) -> None:
        """Best-effort ``last_accessed`` bump; backends may override with a cheaper path."""
        return None

