"""``Memory``: the unified memory (remember, recall, forget, explore) over pluggable storage.

Construction is deliberately free: the LLM, the embedder, the store and the
background save pool are all created on first use, so ``Memory()`` costs well
under a millisecond and never fails for a missing API key. Writes go through
one background thread per memory (``remember`` waits for its write,
``remember_many`` does not); every recall first drains pending writes (the
read barrier), so a recall always sees what was remembered before it.
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ConfigDict, Field, PrivateAttr

from crewgraph._internal.run_context import current_run_id
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.events.memory_events import (
    MemoryQueryCompletedEvent,
    MemoryQueryFailedEvent,
    MemoryQueryStartedEvent,
    MemorySaveCompletedEvent,
    MemorySaveFailedEvent,
    MemorySaveStartedEvent,
)
from crewgraph.memory._async_api import AsyncMemoryMixin
from crewgraph.memory._encoding import SaveRequest, encode_batch
from crewgraph.memory._explore import ExploreMixin
from crewgraph.memory._recall import RecallRequest, deep_recall, shallow_recall
from crewgraph.memory.analysis import Analyst
from crewgraph.memory.scopes import join_scope, normalize_scope
from crewgraph.memory.storage.backend import StorageBackend
from crewgraph.memory.types import MemoryConfig, MemoryMatch, MemoryRecord, _MemoryKnobs, utc_now

if TYPE_CHECKING:
    from crewgraph.memory.memory_scope import MemoryScope, MemorySlice

__all__ = ["Memory"]

_logger = logging.getLogger("crewgraph.memory")
_SAVING = threading.local()
"""Which memory's save job this thread is running (an event handler that calls back into
the same memory from its save thread must not wait for itself)."""
_CONFIG_FIELDS = tuple(_MemoryKnobs.model_fields)


class Memory(AsyncMemoryMixin, ExploreMixin, _MemoryKnobs):
    """Unified memory: LLM-analysed saves, composite-scored recall, scopes and slices.

    ``llm``: model name or BaseLLM for analysis (created lazily). ``storage``:
    a directory, a Qdrant URL, ``":memory:"`` or a StorageBackend (default: the
    embedded Qdrant store at ``./.crewgraph/memory``). ``embedder``: a callable
    ``list[str] -> list[list[float]]``, a provider dict, or None for the offline
    all-MiniLM-L6-v2 (384 dims). The knobs inherited from ``_MemoryKnobs`` tune
    scoring, consolidation and deep recall; see docs/memory.md.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, validate_assignment=False)

    memory_kind: Literal["memory"] = "memory"
    llm: Any = Field(default="gpt-4o-mini", description="Model name or BaseLLM for analysis.")
    storage: Any = Field(default="qdrant-edge", description="Path, Qdrant URL, ':memory:' or StorageBackend.")
    embedder: Any = Field(default=None, description="Callable, provider config dict, or None (local MiniLM).")
    root_scope: str | None = Field(default=None, description="Every path of this memory lives under it.")
    read_only: bool = Field(default=False, description="remember()/remember_many() become no-ops.")

    _config: MemoryConfig = PrivateAttr()
    _lock: threading.RLock = PrivateAttr(default_factory=threading.RLock)
    _llm_obj: Any = PrivateAttr(default=None)
    _embedder_obj: Any = PrivateAttr(default=None)
    _storage_obj: Any = PrivateAttr(default=None)
    _pool: ThreadPoolExecutor | None = PrivateAttr(default=None)
    _pending: set[Future[Any]] = PrivateAttr(default_factory=set)
    _analyst: Analyst = PrivateAttr()

    def model_post_init(self, __context: Any) -> None:
        self._config = MemoryConfig(**{name: getattr(self, name) for name in _CONFIG_FIELDS})
        if self.root_scope is not None:
            self.root_scope = normalize_scope(self.root_scope)
        if not (self.llm is None or isinstance(self.llm, str) or callable(getattr(self.llm, "acall", None))):
            raise TypeError(f"llm must be a model name or a BaseLLM, got {type(self.llm).__name__}")
        if self.embedder is not None and not (isinstance(self.embedder, dict) or callable(self.embedder)):
            raise TypeError("embedder must be a callable list[str] -> list[list[float]], a provider dict or None")
        if isinstance(self.embedder, dict):
            from crewgraph.rag.embeddings.factory import build_embedder

            # Built now -- cheap: no client, no model is loaded before the first embedding -- so
            # a misconfigured provider fails here, not later in a background save that only logs.
            self._embedder_obj = build_embedder(self.embedder)
        self._analyst = Analyst(self._get_llm, self._config.default_importance)

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Memory:
        # A memory is a service bound to a store: copies of agents/crews share it.
        return self

    # -- lazy services ------------------------------------------------------------
    def _get_llm(self) -> Any:
        with self._lock:
            if self._llm_obj is None:
                if self.llm is not None and not isinstance(self.llm, str):
                    self._llm_obj = self.llm
                else:
                    from crewgraph.llm import as_llm

                    self._llm_obj = as_llm(self.llm or "gpt-4o-mini")
            return self._llm_obj

    @property
    def storage_backend(self) -> StorageBackend:
        """The resolved storage backend (nothing is opened until it is used)."""
        with self._lock:
            if self._storage_obj is None:
                from crewgraph.memory.storage.factory import resolve_storage

                self._storage_obj = resolve_storage(self.storage)
            return self._storage_obj

    @property
    def embedder_fn(self) -> Any:
        """The resolved embedder callable."""
        with self._lock:
            if self._embedder_obj is None:
                if self.embedder is None or isinstance(self.embedder, dict):
                    from crewgraph.rag.embeddings.factory import build_embedder

                    self._embedder_obj = build_embedder(self.embedder)
                else:
                    self._embedder_obj = self.embedder
            return self._embedder_obj

    def _embed(self, texts: list[str]) -> list[list[float]]:
        """Embed in one call; raises (the save/recall fails) if the embedder does."""
        raw = self.embedder_fn(list(texts))
        vectors = [[float(x) for x in (v.tolist() if hasattr(v, "tolist") else v)] for v in raw]
        if len(vectors) != len(texts) or any(not v for v in vectors):
            raise ValueError(f"the embedder returned {len(vectors)} vectors (some empty) for {len(texts)} texts")
        return vectors

    def _emit(self, event: Any) -> None:
        if event.run_id is None:
            # Inside a flow kickoff (or a crew it runs) the memory's events join that run, so
            # one listener can follow the whole kickoff; saves carry the context (see _submit).
            event.run_id = current_run_id()
        try:
            crewgraph_event_bus.emit(self, event)
        except Exception:  # pragma: no cover - the bus already guards handlers
            _logger.debug("memory event emission failed", exc_info=True)

    # -- paths ----------------------------------------------------------------------
    def _abs(self, path: str | None) -> str:
        """A path of this memory's namespace as a store path (under ``root_scope``)."""
        return join_scope(self.root_scope, path)

    def _save_root(self, root_scope: str | None) -> str | None:
        """The root a save lands under: a per-call ``root_scope`` replaces this memory's (as in
        CrewAI; it is a store path, not one below this memory's root), else this memory's."""
        return normalize_scope(root_scope) if root_scope is not None else self.root_scope

    # -- writes ---------------------------------------------------------------------
    def _submit(self, fn: Any, *args: Any) -> Future[Any]:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="crewgraph-memory-save")
            # Run the job in the caller's context (its run id, for the events it emits).
            future: Future[Any] = self._pool.submit(contextvars.copy_context().run, fn, *args)
            self._pending.add(future)
        future.add_done_callback(self._done)
        return future

    def _done(self, future: Future[Any]) -> None:
        with self._lock:
            self._pending.discard(future)

    def _encode(self, req: SaveRequest) -> list[MemoryRecord]:
        return encode_batch(
            req, storage=self.storage_backend, embed=self._embed, analyst=self._analyst, config=self._config
        )

    def _run_save(self, req: SaveRequest, agent_role: str | None, *, announce: bool) -> list[MemoryRecord]:
        """Encode one request with its save events (``announce``: emit the Started event here)."""
        label = req.contents[0] if len(req.contents) == 1 else f"{len(req.contents)} memories"
        meta = dict(req.metadata or {})
        if agent_role:
            meta.setdefault("agent_role", agent_role)
        outer = getattr(_SAVING, "owner", None)
        _SAVING.owner = id(self)
        try:
            if announce:
                self._emit(MemorySaveStartedEvent(value=label, metadata=meta or None))
            start = time.perf_counter()
            try:
                records = self._encode(req)
            except Exception as exc:
                self._emit(MemorySaveFailedEvent(value=label, error=f"{type(exc).__name__}: {exc}"))
                raise
            elapsed = (time.perf_counter() - start) * 1000
            self._emit(MemorySaveCompletedEvent(value=label, metadata=meta or None, save_time_ms=elapsed))
            return records
        finally:
            _SAVING.owner = outer

    def _background_save(self, req: SaveRequest, agent_role: str | None) -> list[MemoryRecord]:
        try:
            return self._run_save(req, agent_role, announce=True)
        except Exception as exc:
            _logger.error("background memory save failed: %s: %s", type(exc).__name__, exc)
            raise

    def _save(self, req: SaveRequest, *, wait: bool, agent_role: str | None = None) -> list[MemoryRecord]:
        if not wait:
            self._submit(self._background_save, req, agent_role)
            return []
        if self._in_own_save_thread():
            return self._run_save(req, agent_role, announce=True)
        label = req.contents[0] if len(req.contents) == 1 else f"{len(req.contents)} memories"
        meta = dict(req.metadata or {})
        if agent_role:
            meta.setdefault("agent_role", agent_role)
        self._emit(MemorySaveStartedEvent(value=label, metadata=meta or None))
        future = self._submit(lambda: self._run_save(req, agent_role, announce=False))
        return future.result()

    def remember(
        self,
        content: str,
        scope: str | None = None,
        categories: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        source: str | None = None,
        private: bool = False,
        agent_role: str | None = None,
        root_scope: str | None = None,
    ) -> MemoryRecord | None:
        """Store one memory and return its record (blocking).

        Missing scope/categories/importance are inferred by the LLM (defaults
        "/", [], 0.5 if it fails). Returns the existing record instead when
        consolidation decides the content is already known; None if read-only.
        """
        if self.read_only:
            return None
        root = self._save_root(root_scope)
        req = SaveRequest([content], scope, root, categories, metadata, importance, source, private)
        records = self._save(req, wait=True, agent_role=agent_role)
        return records[0] if records else None

    def remember_many(
        self,
        contents: list[str],
        scope: str | None = None,
        categories: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        source: str | None = None,
        private: bool = False,
        agent_role: str | None = None,
        root_scope: str | None = None,
    ) -> list[MemoryRecord]:
        """Queue several memories for saving and return at once (``[]``).

        Near-duplicates inside the batch (cosine >= ``batch_dedup_threshold``)
        are dropped. Errors surface as ``MemorySaveFailedEvent`` and in the log.
        """
        if self.read_only or not contents:
            return []
        root = self._save_root(root_scope)
        req = SaveRequest(list(contents), scope, root, categories, metadata, importance, source, private)
        return self._save(req, wait=False, agent_role=agent_role)

    def _in_own_save_thread(self) -> bool:
        return getattr(_SAVING, "owner", None) == id(self)

    def extract_and_remember(
        self,
        content: str,
        scope: str | None = None,
        categories: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        source: str | None = None,
        private: bool = False,
        agent_role: str | None = None,
        root_scope: str | None = None,
    ) -> Future[list[str]]:
        """Queue "extract facts from ``content``, then save them" and return at once.

        The future gives the facts. The job is queued like ``remember_many``, so
        any recall made after this call waits for it (read barrier): a crew's
        save node uses this to stay off the critical path without racing the
        next task's recall. Save errors become ``MemorySaveFailedEvent`` and a
        log line; the future still gives the facts.
        """
        if self.read_only or not content.strip():
            done: Future[list[str]] = Future()
            done.set_result([])
            return done
        root = self._save_root(root_scope)

        def job() -> list[str]:
            from crewgraph._internal.sync import run_sync

            facts = run_sync(self._analyst.extract_memories(content))
            if facts:
                req = SaveRequest(facts, scope, root, categories, metadata, importance, source, private)
                try:
                    self._background_save(req, agent_role)
                except Exception:
                    pass  # already reported by _background_save (event + log)
            return facts

        return self._submit(job)

    def drain_writes(self, timeout: float | None = None) -> None:
        """Wait until every queued save has finished (failures are logged, not raised)."""
        if self._in_own_save_thread():
            return  # called back from our own save (e.g. an event handler): never wait for ourselves
        with self._lock:
            pending = list(self._pending)
        for future in pending:
            try:
                future.result(timeout=timeout)
            except Exception as exc:
                _logger.debug("a background memory save failed: %s", exc)

    def close(self) -> None:
        """Drain pending saves, stop the save thread and release the store.

        The memory stays usable: a later call reopens what it needs.
        """
        self.drain_writes()
        with self._lock:
            pool, self._pool = self._pool, None
            storage = self._storage_obj
        if pool is not None:
            pool.shutdown(wait=True)
        if storage is not None and callable(getattr(storage, "close", None)):
            storage.close()

    def extract_memories(self, content: str) -> list[str]:
        """Split raw text into atomic facts with the LLM (stores nothing; whole text on failure)."""
        from crewgraph._internal.sync import run_sync

        return run_sync(self._analyst.extract_memories(content))

    # -- recall ---------------------------------------------------------------------
    def _recall(
        self,
        query: str,
        roots: list[str],
        categories: list[str] | None,
        limit: int,
        depth: str,
        source: str | None,
        include_private: bool,
    ) -> list[MemoryMatch]:
        self.drain_writes()
        self._emit(MemoryQueryStartedEvent(query=query, limit=limit))
        start = time.perf_counter()
        req = RecallRequest(query, limit, [r for r in roots if r != "/"], categories, source, include_private)
        try:
            if depth == "shallow":
                results = shallow_recall(req, storage=self.storage_backend, embed=self._embed, config=self._config)
            elif depth == "deep":
                results = deep_recall(
                    req, storage=self.storage_backend, embed=self._embed, analyst=self._analyst, config=self._config
                )
            else:
                raise ValueError(f"depth must be 'shallow' or 'deep', got {depth!r}")
        except Exception as exc:
            self._emit(MemoryQueryFailedEvent(query=query, error=f"{type(exc).__name__}: {exc}"))
            raise
        elapsed = (time.perf_counter() - start) * 1000
        self._emit(MemoryQueryCompletedEvent(query=query, limit=limit, results=results, query_time_ms=elapsed))
        return results

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
        """Memories relevant to ``query``, best composite score first.

        ``source`` keeps only that source's memories (its private ones
        included); otherwise private memories are hidden unless
        ``include_private``. ``depth="shallow"`` never calls the LLM.
        """
        roots = [self._abs(scope)] if (scope is not None or self.root_scope) else []
        return self._recall(query, roots, categories, limit, depth, source, include_private)

    # -- deletion -------------------------------------------------------------------
    def forget(
        self,
        scope: str | None = None,
        categories: list[str] | None = None,
        older_than: datetime | None = None,
        metadata_filter: dict[str, Any] | None = None,
        record_ids: list[str] | None = None,
    ) -> int:
        """Delete matching memories (the whole subtree of ``scope``); returns how many."""
        self.drain_writes()
        target = self._abs(scope)
        return self.storage_backend.delete(
            scope_prefix=None if target == "/" else target,
            categories=categories,
            record_ids=record_ids,
            older_than=older_than,
            metadata_filter=metadata_filter,
        )

    def reset(self, scope: str | None = None) -> None:
        """Delete everything in ``scope``; with no scope (and no root_scope) drop the whole store.

        Dropping the store also forgets its vector size, so this is the fix for an
        embedding dimension mismatch after changing embedders.
        """
        self.drain_writes()
        target = self._abs(scope)
        self.storage_backend.reset(None if target == "/" else target)

    def update(
        self,
        record_id: str,
        content: str | None = None,
        scope: str | None = None,
        categories: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float | None = None,
    ) -> MemoryRecord:
        """Change one record (re-embedding new content); KeyError if it does not exist."""
        self.drain_writes()
        existing = self.storage_backend.get_record(record_id)
        if existing is None:
            raise KeyError(f"no memory record with id {record_id!r}")
        changes: dict[str, Any] = {"last_accessed": utc_now()}
        if content is not None:
            changes["content"] = content
            changes["embedding"] = self._embed([content])[0]
        if scope is not None:
            changes["scope"] = self._abs(scope)
        if categories is not None:
            changes["categories"] = list(categories)
        if metadata is not None:
            changes["metadata"] = dict(metadata)
        if importance is not None:
            changes["importance"] = importance
        updated = existing.model_copy(update=changes)
        self.storage_backend.update(updated)
        return updated

    # -- views ----------------------------------------------------------------------
    def scope(self, path: str) -> MemoryScope:
        """A view restricted to the subtree ``path`` (reads and writes)."""
        from crewgraph.memory.memory_scope import MemoryScope

        return MemoryScope(memory=self, root_path=path)

    def subscope(self, path: str) -> MemoryScope:
        """Same as :meth:`scope` (for symmetry with ``MemoryScope.subscope``)."""
        return self.scope(path)

    def slice(
        self, scopes: list[str], categories: list[str] | None = None, read_only: bool = True
    ) -> MemorySlice:
        """A view over several subtrees; read-only by default."""
        from crewgraph.memory.memory_scope import MemorySlice

        return MemorySlice(memory=self, scopes=scopes, categories=categories, read_only=read_only)

    async def aextract_memories(self, content: str) -> list[str]:
        return await self._analyst.extract_memories(content)
