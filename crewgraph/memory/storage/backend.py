"""The storage contract of the unified memory, and the errors storage raises.

:class:`Memory` talks to storage only through :class:`StorageBackend`, so a
user can pass any object with these methods (``Memory(storage=my_backend)``).
Two implementations ship: the embedded Qdrant engine (``qdrant-edge``, the
default) and a Qdrant server or in-memory client (``qdrant-client``).

Filtering contract: a backend applies *every* filter below inside the store
(scope subtree, categories, source, privacy, time), so ``limit`` results are
the best ``limit`` among the visible records, not a post-filtered remainder.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from crewgraph.errors import CrewGraphError
from crewgraph.memory.types import MemoryRecord, ScopeInfo

__all__ = [
    "EmbeddingDimensionMismatchError",
    "MemoryStorageError",
    "StorageBackend",
    "StorageLockedError",
]

_RESET_HINT = (
    "To start over with the new embedder, reset the memory store: run "
    "`crewgraph reset-memories -m`, call `Memory(...).reset()`, or {remove}. "
    "To keep the stored memories instead, configure the embedder they were made with."
)


class MemoryStorageError(CrewGraphError):
    """The memory store could not be opened, read or written."""


class EmbeddingDimensionMismatchError(MemoryStorageError, ValueError):
    """The store holds vectors of another size than the current embedder produces."""

    def __init__(self, expected: int, got: int, where: str = "", remove: str = "") -> None:
        self.expected = expected
        self.got = got
        self.where = where
        super().__init__(
            f"Embedding dimension mismatch: the memory store at {where or '(unknown)'} was created "
            f"with {expected}-dimensional embeddings, but the current embedder produces {got}. "
            + _RESET_HINT.format(remove=remove or f"delete the directory {where}")
        )


class StorageLockedError(MemoryStorageError):
    """Another process has the embedded store open (qdrant-edge is single-process)."""


@runtime_checkable
class StorageBackend(Protocol):
    """What Memory needs from a store. Scores returned by ``search`` are similarities.

    ``search`` returns ``(record, similarity)`` pairs, best first, where
    similarity is ``1 / (1 + distance)`` in [0, 1] (cosine distance for the
    shipped backends). Scope arguments are normalised paths (``/a/b``) and
    always mean the whole subtree.
    """

    def save(self, records: list[MemoryRecord]) -> None:
        """Insert or replace records (each carries its embedding)."""
        ...

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
        """Nearest records to ``query_embedding`` among those the filters allow.

        ``scopes`` (any of these subtrees) narrows further than ``scope_prefix``;
        ``source`` keeps only that source's records (its private ones included);
        without ``source``, ``include_private=False`` hides every private record.
        """
        ...

    def delete(
        self,
        scope_prefix: str | None = None,
        categories: list[str] | None = None,
        record_ids: list[str] | None = None,
        older_than: datetime | None = None,
        metadata_filter: dict[str, Any] | None = None,
    ) -> int:
        """Delete matching records; returns how many were deleted."""
        ...

    def update(self, record: MemoryRecord) -> None:
        """Replace the record with the same id (keeps the stored vector if ``embedding`` is None)."""
        ...

    def get_record(self, record_id: str) -> MemoryRecord | None: ...

    def list_records(
        self, scope_prefix: str | None = None, limit: int = 200, offset: int = 0
    ) -> list[MemoryRecord]:
        """Records in a subtree, newest first."""
        ...

    def get_scope_info(self, scope: str) -> ScopeInfo: ...

    def list_scopes(self, parent: str = "/") -> list[str]:
        """Immediate child scopes of ``parent`` that hold records."""
        ...

    def list_categories(self, scope_prefix: str | None = None) -> dict[str, int]: ...

    def scope_counts(self, scope_prefix: str | None = None) -> dict[str, int]:
        """Record count of every scope in the subtree (each count includes its subscopes)."""
        ...

    def count(self, scope_prefix: str | None = None) -> int: ...

    def reset(self, scope_prefix: str | None = None) -> None:
        """Delete a subtree; with no scope, drop the whole store (and its vector size)."""
        ...

    def close(self) -> None: ...
