"""Views of a Memory: ``MemoryScope`` (one subtree) and ``MemorySlice`` (several).

A view holds no state of its own: it rewrites paths and forwards to its
memory, so views share the store, the save queue and the read barrier.
Every path given to a view is relative to it and cannot leave it (``..`` is
refused by :func:`~crewgraph.memory.scopes.normalize_scope`).
"""

from __future__ import annotations

from concurrent.futures import Future
from datetime import datetime
from typing import Any, Literal

from crewgraph.memory.memory import Memory
from crewgraph.memory.scopes import is_within, join_scope, normalize_scope
from crewgraph.memory.types import MemoryMatch, MemoryRecord, ScopeInfo

__all__ = ["MemoryScope", "MemorySlice"]


def _bound(memory: Memory | None, what: str) -> Memory:
    if memory is None:
        raise RuntimeError(f"this {what} is not bound to a Memory: call .bind(memory) first")
    return memory


class MemoryScope:
    """Everything a :class:`Memory` does, confined to the subtree ``root_path``."""

    memory_kind: Literal["scope"] = "scope"
    read_only: bool = False

    def __init__(self, memory: Memory | None = None, root_path: str = "/", memory_kind: Literal["scope"] = "scope") -> None:
        if memory_kind != "scope":
            raise ValueError(f"MemoryScope(memory_kind={memory_kind!r}): a scope's memory_kind is 'scope'")
        self._memory = memory
        self.root_path = normalize_scope(root_path)

    @property
    def memory(self) -> Memory:
        """The memory this view forwards to (an error naming ``bind`` when there is none)."""
        return _bound(self._memory, "MemoryScope")

    def bind(self, memory: Memory) -> MemoryScope:
        """Attach the view to ``memory`` (a view made without one); returns the view."""
        self._memory = memory
        return self

    def __repr__(self) -> str:
        return f"MemoryScope(root_path={self.root_path!r})"

    def _path(self, path: str | None) -> str:
        return join_scope(self.root_path, path)

    def _root(self) -> str:
        """This view's root as a store path (a per-call ``root_scope`` is one)."""
        return self.memory._abs(self.root_path)

    def remember(self, content: str, scope: str | None = "/", categories: list[str] | None = None,
                 metadata: dict[str, Any] | None = None, importance: float | None = None, source: str | None = None,
                 private: bool = False, **kwargs: Any) -> MemoryRecord | None:
        """Store under this scope: ``scope`` is relative to its root and defaults to the root itself,
        as CrewAI's does (no model-suggested sub-scope is appended; categories and importance are
        still inferred when not given)."""
        kwargs.pop("root_scope", None)
        return self.memory.remember(content, scope=scope or "/", categories=categories, metadata=metadata,
                                    importance=importance, source=source, private=private,
                                    root_scope=self._root(), **kwargs)

    def remember_many(self, contents: list[str], scope: str | None = "/", categories: list[str] | None = None,
                      metadata: dict[str, Any] | None = None, importance: float | None = None,
                      source: str | None = None, private: bool = False, agent_role: str | None = None,
                      **kwargs: Any) -> list[MemoryRecord]:
        """:meth:`remember` for several contents (non-blocking, as :meth:`Memory.remember_many`)."""
        kwargs.pop("root_scope", None)
        return self.memory.remember_many(contents, scope=scope or "/", categories=categories, metadata=metadata,
                                         importance=importance, source=source, private=private,
                                         agent_role=agent_role, root_scope=self._root(), **kwargs)

    def extract_and_remember(self, content: str, scope: str | None = None, **kwargs: Any) -> Future[list[str]]:
        """Queue fact extraction + save under this scope (see :meth:`Memory.extract_and_remember`)."""
        kwargs.pop("root_scope", None)
        return self.memory.extract_and_remember(content, scope=scope, root_scope=self._root(), **kwargs)

    def recall(
        self,
        query: str,
        scope: str | None = None,
        categories: list[str] | None = None,
        limit: int = 10,
        depth: Literal["shallow", "deep"] = "deep",
        source: str | None = None,
        include_private: bool = False,
    ) -> list[MemoryMatch]:
        """Recall within this subtree only."""
        return self.memory.recall(query, self._path(scope), categories, limit, depth, source, include_private)

    def forget(self, scope: str | None = None, categories: list[str] | None = None,
               older_than: datetime | None = None, metadata_filter: dict[str, Any] | None = None,
               record_ids: list[str] | None = None) -> int:
        """Delete matching memories of this subtree (or of ``scope`` inside it); returns how many."""
        return self.memory.forget(self._path(scope), categories=categories, older_than=older_than,
                                  metadata_filter=metadata_filter, record_ids=record_ids)

    def reset(self, scope: str | None = None) -> None:
        """Delete this subtree (or a part of it); never the rest of the store."""
        self.memory.forget(self._path(scope))

    def extract_memories(self, content: str) -> list[str]:
        return self.memory.extract_memories(content)

    def drain_writes(self, timeout: float | None = None) -> None:
        self.memory.drain_writes(timeout)

    def tree(self, path: str | None = None, max_depth: int = 3) -> str:
        return self.memory.tree(self._path(path), max_depth)

    def info(self, path: str | None = None) -> ScopeInfo:
        return self.memory.info(self._path(path))

    def list_scopes(self, path: str | None = None) -> list[str]:
        return self.memory.list_scopes(self._path(path))

    def list_categories(self, path: str | None = None) -> dict[str, int]:
        return self.memory.list_categories(self._path(path))

    def list_records(
        self,
        scope: str | None = None,
        limit: int = 200,
        offset: int = 0,
        source: str | None = None,
        include_private: bool = False,
    ) -> list[MemoryRecord]:
        """This subtree's records, newest first, under recall's privacy rule."""
        return self.memory.list_records(self._path(scope), limit, offset, source, include_private)

    def subscope(self, path: str) -> MemoryScope:
        """A narrower view: ``scope("/agent/x").subscope("notes")`` is ``/agent/x/notes``."""
        return MemoryScope(self.memory, self._path(path))

    def scope(self, path: str) -> MemoryScope:
        return self.subscope(path)


class MemorySlice:
    """A view over several (possibly disjoint) subtrees, read-only by default.

    Recall searches all of them in one filtered query and ranks the union.
    A read-only slice raises ``PermissionError`` on writes; a read-write slice
    needs an explicit ``scope`` that lies inside one of its subtrees.
    """

    memory_kind: Literal["slice"] = "slice"

    def __init__(
        self,
        memory: Memory | None = None,
        scopes: list[str] | None = None,
        categories: list[str] | None = None,
        read_only: bool = True,
        memory_kind: Literal["slice"] = "slice",
    ) -> None:
        if memory_kind != "slice":
            raise ValueError(f"MemorySlice(memory_kind={memory_kind!r}): a slice's memory_kind is 'slice'")
        if not scopes:
            raise ValueError("a memory slice needs at least one scope: MemorySlice(scopes=['/a', '/b'])")
        self._memory = memory
        self.scopes = [normalize_scope(s) for s in scopes]
        self.categories = list(categories) if categories else None
        self.read_only = read_only

    @property
    def memory(self) -> Memory:
        """The memory this view forwards to (an error naming ``bind`` when there is none)."""
        return _bound(self._memory, "MemorySlice")

    def bind(self, memory: Memory) -> MemorySlice:
        """Attach the view to ``memory`` (a view made without one); returns the view."""
        self._memory = memory
        return self

    def __repr__(self) -> str:
        return f"MemorySlice(scopes={self.scopes!r}, read_only={self.read_only})"

    def _inside(self, scope: str) -> str:
        """``scope`` normalised, or ``PermissionError`` if it lies outside every subtree of the slice."""
        target = normalize_scope(scope)
        if not any(is_within(target, s) for s in self.scopes):
            raise PermissionError(f"scope {target!r} is outside this slice's scopes {self.scopes}")
        return target

    def _writable_scope(self, scope: str | None) -> str:
        if self.read_only:
            raise PermissionError(
                f"this memory slice over {self.scopes} is read-only; use memory.slice(..., read_only=False) "
                "or memory.scope(path) to write"
            )
        if scope is None:
            raise ValueError(f"writing through a read-write slice needs an explicit scope (one of {self.scopes})")
        return self._inside(scope)

    def remember(self, content: str, scope: str | None = None, categories: list[str] | None = None,
                 metadata: dict[str, Any] | None = None, importance: float | None = None, source: str | None = None,
                 private: bool = False, **kwargs: Any) -> MemoryRecord | None:
        kwargs.update(categories=categories, metadata=metadata, importance=importance, source=source, private=private)
        target = self._writable_scope(scope)
        kwargs.pop("root_scope", None)
        return self.memory.remember(content, scope=target, **kwargs)

    def remember_many(self, contents: list[str], scope: str | None = None, **kwargs: Any) -> list[MemoryRecord]:
        target = self._writable_scope(scope)
        kwargs.pop("root_scope", None)
        return self.memory.remember_many(contents, scope=target, **kwargs)

    def extract_and_remember(self, content: str, scope: str | None = None, **kwargs: Any) -> Future[list[str]]:
        target = self._writable_scope(scope)
        kwargs.pop("root_scope", None)
        return self.memory.extract_and_remember(content, scope=target, **kwargs)

    def recall(
        self,
        query: str,
        scope: str | None = None,
        categories: list[str] | None = None,
        limit: int = 10,
        depth: Literal["shallow", "deep"] = "deep",
        source: str | None = None,
        include_private: bool = False,
    ) -> list[MemoryMatch]:
        """Recall across the slice's subtrees (or one of them, if ``scope`` names it)."""
        roots = [self.memory._abs(s) for s in self.scopes]
        if scope is not None:
            roots = [self.memory._abs(self._inside(scope))]
        cats = categories if categories is not None else self.categories
        return self.memory._recall(query, roots, cats, limit, depth, source, include_private)

    def forget(self, scope: str | None = None, older_than: datetime | None = None, **kwargs: Any) -> int:
        if self.read_only:
            self._writable_scope(scope)
        targets = [self._writable_scope(scope)] if scope is not None else self.scopes
        return sum(self.memory.forget(t, older_than=older_than, **kwargs) for t in targets)

    def extract_memories(self, content: str) -> list[str]:
        return self.memory.extract_memories(content)

    def drain_writes(self, timeout: float | None = None) -> None:
        self.memory.drain_writes(timeout)

    def _targets(self, path: str | None) -> list[str]:
        """``path`` confined to the slice, or every subtree of the slice when it is None."""
        return [self._inside(path)] if path is not None else list(self.scopes)

    def info(self, path: str = "/") -> ScopeInfo:
        """The scope ``path`` (inside one of the slice's subtrees); ``"/"``: the first subtree."""
        return self.memory.info(self._inside(self.scopes[0] if path in ("/", "") else path))

    def list_scopes(self, path: str = "/") -> list[str]:
        """The scopes below ``path`` (inside the slice), or below every subtree for ``"/"``."""
        targets = list(self.scopes) if path in ("/", "") else [self._inside(path)]
        return sorted({s for t in targets for s in self.memory.list_scopes(t)})

    # The listing helpers take the same arguments as Memory's (code written for a Memory
    # or a MemoryScope works on a slice); without a path they cover every subtree.
    def list_records(
        self,
        scope: str | None = None,
        limit: int = 200,
        offset: int = 0,
        source: str | None = None,
        include_private: bool = False,
    ) -> list[MemoryRecord]:
        """Newest records across the slice's subtrees (or in ``scope``, inside the slice), under
        recall's privacy rule."""
        merged: dict[str, MemoryRecord] = {}
        for target in self._targets(scope):
            for record in self.memory.list_records(target, offset + limit, 0, source, include_private):
                merged[record.id] = record
        newest = sorted(merged.values(), key=lambda r: r.created_at, reverse=True)
        return newest[offset : offset + limit]

    def list_categories(self, path: str | None = None) -> dict[str, int]:
        """Category -> record count across the slice's subtrees (or in ``path``)."""
        counts: dict[str, int] = {}
        for target in self._targets(path):
            for name, n in self.memory.list_categories(target).items():
                counts[name] = counts.get(name, 0) + n
        return counts

    def tree(self, path: str | None = None, max_depth: int = 3) -> str:
        return "\n".join(self.memory.tree(s, max_depth) for s in self._targets(path))
