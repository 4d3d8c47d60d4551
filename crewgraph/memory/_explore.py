"""The read-only exploration helpers of :class:`~crewgraph.memory.Memory` (tree, info, lists).

Kept apart from the save/recall machinery; every helper drains pending writes
first, so what it shows includes everything remembered before the call.
"""

from __future__ import annotations

from typing import Any

from crewgraph.memory.scopes import scope_depth
from crewgraph.memory.types import MemoryRecord, ScopeInfo

__all__ = ["ExploreMixin"]


class ExploreMixin:
    """Needs ``drain_writes``, ``_abs`` and ``storage_backend`` from the class it is mixed into."""

    def drain_writes(self, timeout: float | None = None) -> None:  # pragma: no cover - provided by Memory
        raise NotImplementedError

    def _abs(self, path: str | None) -> str:  # pragma: no cover - provided by Memory
        raise NotImplementedError

    @property
    def storage_backend(self) -> Any:  # pragma: no cover - provided by Memory
        raise NotImplementedError

    def tree(self, path: str | None = None, max_depth: int = 3) -> str:
        """The scope tree below ``path`` with record counts (each count includes subscopes)."""
        self.drain_writes()
        root = self._abs(path)
        counts = self.storage_backend.scope_counts(root)
        base = scope_depth(root)
        lines = [f"{root} ({counts.get(root, 0)} records)"]
        for scope in sorted(s for s in counts if s != root):
            depth = scope_depth(scope) - base
            if depth <= max_depth:
                lines.append(f"{'  ' * depth}{scope} ({counts[scope]} records)")
        return "\n".join(lines)

    def info(self, path: str | None = None) -> ScopeInfo:
        """Counts, categories, oldest/newest record and child scopes of ``path``."""
        self.drain_writes()
        return self.storage_backend.get_scope_info(self._abs(path))

    def list_scopes(self, path: str | None = None) -> list[str]:
        """Immediate child scopes of ``path`` (default: the root)."""
        self.drain_writes()
        return self.storage_backend.list_scopes(self._abs(path))

    def list_categories(self, path: str | None = None) -> dict[str, int]:
        """Category -> record count within ``path``."""
        self.drain_writes()
        target = self._abs(path)
        return self.storage_backend.list_categories(None if target == "/" else target)

    def list_records(
        self,
        scope: str | None = None,
        limit: int = 200,
        offset: int = 0,
        source: str | None = None,
        include_private: bool = False,
    ) -> list[MemoryRecord]:
        """Records in ``scope`` and its sub-scopes, newest first, under recall's privacy rule:
        ``source`` lists only that source's records (its private ones included); otherwise
        private records are left out unless ``include_private``."""
        self.drain_writes()
        target = self._abs(scope)
        prefix = None if target == "/" else target
        if limit <= 0:
            return []

        def visible(record: MemoryRecord) -> bool:
            if source is not None:
                return record.source == source
            return include_private or not record.private

        out: list[MemoryRecord] = []
        skipped, start, page = 0, 0, max(offset + limit, 50)
        while True:  # pages of the store until the visible records fill the request
            batch = self.storage_backend.list_records(prefix, limit=page, offset=start)
            for record in batch:
                if not visible(record):
                    continue
                if skipped < offset:
                    skipped += 1
                    continue
                out.append(record)
                if len(out) >= limit:
                    return out
            if len(batch) < page:
                return out
            start += page
