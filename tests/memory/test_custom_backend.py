"""A backend written for CrewAI's protocol (no scopes/source/privacy kwargs, no scope_counts)
still works as Memory(storage=backend): the adapter applies what it cannot."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from memory_helpers import WordHashEmbedder, explicit

from crewgraph.memory import Memory, MemoryRecord, ScopeInfo
from crewgraph.memory.scopes import is_within
from crewgraph.memory.storage.compat import LegacyBackendAdapter, adapt_backend


class DictBackend:
    """CrewAI's StorageBackend shape, in a dict (like a user's MongoDB backend would be)."""

    def __init__(self) -> None:
        self.rows: dict[str, MemoryRecord] = {}

    def _in(self, record: MemoryRecord, prefix: str | None) -> bool:
        return prefix is None or is_within(record.scope, prefix)

    def save(self, records: list[MemoryRecord]) -> None:
        for r in records:
            self.rows[r.id] = r

    def search(
        self,
        query_embedding: list[float],
        scope_prefix: str | None = None,
        categories: list[str] | None = None,
        metadata_filter: dict[str, Any] | None = None,
        limit: int = 10,
        min_score: float = 0.0,
    ) -> list[tuple[MemoryRecord, float]]:
        scored = []
        for r in self.rows.values():
            if not self._in(r, scope_prefix) or (categories and not set(categories) & set(r.categories)):
                continue
            cos = sum(a * b for a, b in zip(query_embedding, r.embedding or [], strict=False))
            scored.append((r, 1 / (1 + (1 - cos))))
        scored.sort(key=lambda x: x[1], reverse=True)
        return [x for x in scored if x[1] >= min_score][:limit]

    def delete(self, scope_prefix: str | None = None, categories: list[str] | None = None,
               record_ids: list[str] | None = None, older_than: datetime | None = None,
               metadata_filter: dict[str, Any] | None = None) -> int:
        doomed = [k for k, r in self.rows.items() if self._in(r, scope_prefix) and (not record_ids or k in record_ids)]
        for k in doomed:
            del self.rows[k]
        return len(doomed)

    def update(self, record: MemoryRecord) -> None:
        self.rows[record.id] = record

    def get_record(self, record_id: str) -> MemoryRecord | None:
        return self.rows.get(record_id)

    def list_records(self, scope_prefix: str | None = None, limit: int = 200, offset: int = 0) -> list[MemoryRecord]:
        rows = sorted((r for r in self.rows.values() if self._in(r, scope_prefix)), key=lambda r: r.created_at, reverse=True)
        return rows[offset : offset + limit]

    def get_scope_info(self, scope: str) -> ScopeInfo:
        return ScopeInfo(path=scope, record_count=self.count(scope), child_scopes=self.list_scopes(scope))

    def list_scopes(self, parent: str = "/") -> list[str]:
        depth = 0 if parent == "/" else parent.count("/")
        out = set()
        for r in self.rows.values():
            parts = r.scope.strip("/").split("/")
            if is_within(r.scope, parent) and len(parts) > depth and r.scope != parent:
                out.add("/" + "/".join(parts[: depth + 1]))
        return sorted(out)

    def list_categories(self, scope_prefix: str | None = None) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.rows.values():
            if self._in(r, scope_prefix):
                for c in r.categories:
                    out[c] = out.get(c, 0) + 1
        return out

    def count(self, scope_prefix: str | None = None) -> int:
        return sum(1 for r in self.rows.values() if self._in(r, scope_prefix))

    def reset(self, scope_prefix: str | None = None) -> None:
        self.delete(scope_prefix)


def test_full_protocol_backends_are_not_wrapped(store_dir: Any) -> None:
    from crewgraph.memory.storage.qdrant_edge import QdrantEdgeStorage

    edge = QdrantEdgeStorage(store_dir / "x")
    assert adapt_backend(edge) is edge
    assert isinstance(adapt_backend(DictBackend()), LegacyBackendAdapter)


def test_memory_on_a_crewai_style_backend() -> None:
    backend = DictBackend()
    m = Memory(storage=backend, embedder=WordHashEmbedder(), llm=None)
    try:
        m.remember("alice private api key", source="user:alice", private=True, **explicit(scope="/users"))
        m.remember("public api key rotation policy", **explicit(scope="/policies"))
        m.remember("api key for the researcher", **explicit(scope="/agent/researcher"))
        assert len(backend.rows) == 3
        seen = {x.record.content for x in m.recall("api key", depth="shallow")}
        assert seen == {"public api key rotation policy", "api key for the researcher"}
        assert [x.record.content for x in m.recall("api key", source="user:alice", depth="shallow")] == ["alice private api key"]
        view = m.slice(["/agent/researcher", "/policies"])
        assert {x.record.scope for x in view.recall("api key", depth="shallow")} == {"/agent/researcher", "/policies"}
        assert m.tree().splitlines()[0] == "/ (3 records)"
        assert "    /agent/researcher (1 records)" in m.tree()
        assert math.isclose(m.recall("public api key rotation policy", depth="shallow")[0].score, 0.5 + 0.3 + 0.1, rel_tol=1e-3)
    finally:
        m.close()
