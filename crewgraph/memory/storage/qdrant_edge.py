"""The default store: the real Qdrant engine embedded in-process (``qdrant-edge-py``).

Layout of a store directory (``./.crewgraph/memory`` by default)::

    crewgraph_memory.json   vector size and format version (checked before opening)
    shard/                  the Qdrant edge shard (segments + WAL)
    .lock                   held (filelock: flock, or msvcrt on Windows) while a process has it open
    .lock.pid               the pid of that process, for the error another process gets

An edge shard can be opened once per process and by one process at a time,
so every :class:`QdrantEdgeStorage` on the same path in a process shares one
open shard through a registry (with one lock serialising its use: threads
and several ``Memory`` objects then never lose a write), and a second
process gets :class:`StorageLockedError` saying what to do instead.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import threading
from pathlib import Path
from typing import Any

from crewgraph.memory.storage._qdrant_base import (
    FACET_LIMIT,
    INDEXES,
    VECTOR_NAME,
    Cond,
    QdrantStorageBase,
)
from crewgraph.memory.storage.backend import MemoryStorageError, StorageLockedError

__all__ = ["QdrantEdgeStorage"]

_META = "crewgraph_memory.json"
_FORMAT = 1


class _SharedShard:
    """One open shard per directory per process, with its lock and reference count."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.lock = threading.RLock()
        self.refs = 0
        self.shard: Any = None
        self.size: int | None = None
        self.broken: tuple[str, BaseException] | None = None
        """Why the store on disk could not be loaded (message, cause): every use raises it,
        except a reset, which is how a damaged store is repaired."""
        self._lock_file: Any = None

    @property
    def shard_path(self) -> Path:
        return self.root / "shard"

    def open(self, timeout: float) -> None:
        self._make_root()
        _require_space(self.root)  # before the engine maps a file: on a full disk that is SIGBUS
        self._lock_process(timeout)
        try:
            meta = self._read_meta()
            if meta is not None and self.shard_path.is_dir() and any(self.shard_path.iterdir()):
                from qdrant_edge import EdgeShard

                self.shard = EdgeShard.load(str(self.shard_path))
                self.size = int(meta["vector_size"])
        except MemoryStorageError as exc:
            self.broken = (str(exc), exc)
        except Exception as exc:  # qdrant-edge reports a damaged shard as a bare Exception
            self.broken = (
                f"the memory store at {self.root} could not be loaded, it looks damaged "
                f"({type(exc).__name__}: {exc}). {_reset_hint(self.root)}",
                exc,
            )
        except BaseException:
            self._unlock_process()
            raise

    def _make_root(self) -> None:
        """Create the store directory, or say plainly why ``storage=`` cannot be one."""
        if self.root.exists() and not self.root.is_dir():
            raise MemoryStorageError(
                f"Memory(storage=...) must name a directory, but {self.root} is a file. Give a "
                "directory path (it is created if missing), a Qdrant URL or ':memory:'."
            )
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise MemoryStorageError(
                f"cannot create the memory store directory {self.root}: {exc.strerror or exc}. Give "
                "Memory(storage=...) a writable directory, or set CREWGRAPH_STORAGE_DIR."
            ) from exc

    def check(self) -> None:
        """Raise the load error of a damaged store (a fresh exception per use)."""
        if self.broken is not None:
            message, cause = self.broken
            raise MemoryStorageError(message) from cause

    def _read_meta(self) -> dict[str, Any] | None:
        path = self.root / _META
        if not path.exists():
            return None
        try:
            meta: dict[str, Any] = json.loads(path.read_text("utf-8"))
            int(meta["vector_size"])
        except (ValueError, KeyError, TypeError) as exc:
            raise MemoryStorageError(
                f"the memory store metadata {path} is unreadable ({exc}). {_reset_hint(self.root)}"
            ) from exc
        return meta

    def create(self, size: int) -> None:
        from qdrant_edge import (
            Distance,
            EdgeConfig,
            EdgeShard,
            EdgeVectorParams,
            PayloadSchemaType,
            UpdateOperation,
        )

        if self.shard_path.exists():
            shutil.rmtree(self.shard_path)
        config = EdgeConfig(vectors={VECTOR_NAME: EdgeVectorParams(size=size, distance=Distance.Cosine)})
        shard = EdgeShard.create(str(self.shard_path), config)
        kinds = {
            "keyword": PayloadSchemaType.Keyword,
            "integer": PayloadSchemaType.Integer,
            "float": PayloadSchemaType.Float,
        }
        for name, kind in INDEXES.items():
            shard.update(UpdateOperation.create_field_index(name, kinds[kind]))
        shard.flush()
        tmp = self.root / (_META + ".tmp")
        tmp.write_text(json.dumps({"vector_size": size, "distance": "cosine", "format": _FORMAT}), "utf-8")
        os.replace(tmp, self.root / _META)
        self.shard, self.size = shard, size

    def drop(self) -> None:
        self._close_shard()
        with contextlib.suppress(FileNotFoundError):
            (self.root / _META).unlink()
        if self.shard_path.exists():
            shutil.rmtree(self.shard_path)
        self.size = None
        self.broken = None

    def _close_shard(self) -> None:
        if self.shard is not None:
            try:
                self.shard.flush()
            finally:
                self.shard.close()
                self.shard = None

    def close(self) -> None:
        try:
            self._close_shard()
        finally:
            self._unlock_process()

    # -- cross-process lock -------------------------------------------------------
    def _lock_process(self, timeout: float) -> None:
        # filelock: flock on POSIX, msvcrt on Windows. The holder's pid goes in a file of its own
        # (filelock truncates the lock file each time another process tries it).
        from filelock import FileLock, Timeout

        lock = FileLock(str(self.root / ".lock"), timeout=max(timeout, 0.0), thread_local=False)
        try:
            lock.acquire(poll_interval=0.05)
        except Timeout:
            try:
                holder = (self.root / ".lock.pid").read_text(encoding="utf-8").strip() or "unknown"
            except OSError:
                holder = "unknown"
            raise StorageLockedError(
                f"the memory store at {self.root} is open in another process (pid {holder}). "
                "The embedded Qdrant store serves one process at a time: close the other "
                "process's memory (memory.close()), give this process its own "
                "Memory(storage='<path>'), or share one store between processes with a "
                "Qdrant server (Memory(storage='http://localhost:6333') or CREWGRAPH_QDRANT_URL)."
            ) from None
        (self.root / ".lock.pid").write_text(str(os.getpid()), encoding="utf-8")
        self._lock_file = lock

    def _unlock_process(self) -> None:
        if self._lock_file is not None:
            with contextlib.suppress(OSError):
                (self.root / ".lock.pid").unlink(missing_ok=True)
            self._lock_file.release(force=True)
        self._lock_file = None


def _require_space(root: Path, needed: int = 0) -> None:
    """Refuse to open or write on a disk too full for the engine (it would crash the process)."""
    from crewgraph._internal.store_errors import free_space_problem

    problem = free_space_problem("the memory store", root, needed)
    if problem is not None:
        raise MemoryStorageError(problem)


def _reset_hint(root: Path) -> str:
    return (
        f"To start over, run `crewgraph reset-memories -m --storage-path {root}`, call "
        f"Memory(storage={str(root)!r}).reset(), or delete the directory {root}."
    )


_REGISTRY: dict[str, _SharedShard] = {}
_REGISTRY_LOCK = threading.Lock()


def _acquire(root: Path, timeout: float) -> _SharedShard:
    key = str(root.resolve())
    with _REGISTRY_LOCK:
        shared = _REGISTRY.get(key)
        if shared is None:
            shared = _SharedShard(Path(key))
            shared.open(timeout)
            _REGISTRY[key] = shared
        shared.refs += 1
        return shared


def _release(shared: _SharedShard) -> None:
    with _REGISTRY_LOCK:
        shared.refs -= 1
        if shared.refs > 0:
            return
        _REGISTRY.pop(str(shared.root), None)
    with shared.lock:
        shared.close()


def _forget_in_child() -> None:
    # A forked child must not use (or close) the parent's open shards: it starts with
    # an empty registry and gets StorageLockedError if it opens a path the parent holds.
    global _REGISTRY_LOCK
    _REGISTRY.clear()
    _REGISTRY_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


@atexit.register
def _close_all() -> None:  # flush every open shard when the interpreter exits
    with _REGISTRY_LOCK:
        open_shards = list(_REGISTRY.values())
        _REGISTRY.clear()
    for shared in open_shards:
        with contextlib.suppress(Exception), shared.lock:
            shared.close()


def _to_filter(conds: list[Cond]) -> Any:
    from qdrant_edge import FieldCondition, Filter, MatchAny, MatchValue, RangeFloat

    if not conds:
        return None
    must: list[Any] = []
    for c in conds:
        if c.op == "eq":
            must.append(FieldCondition(key=c.key, match=MatchValue(c.value)))
        elif c.op == "any":
            must.append(FieldCondition(key=c.key, match=MatchAny(list(c.value))))
        else:
            must.append(FieldCondition(key=c.key, range=RangeFloat(gte=c.gte, lt=c.lt)))
    return Filter(must=must)


class QdrantEdgeStorage(QdrantStorageBase):
    """Memory storage on an embedded Qdrant edge shard at ``path``.

    Opening is lazy (first use), so constructing one costs nothing.
    ``lock_timeout`` is how long to wait for another process to release the
    directory before raising :class:`StorageLockedError`.
    """

    def __init__(self, path: str | os.PathLike[str], *, lock_timeout: float = 2.0) -> None:
        self.path = Path(path).expanduser()
        self.lock_timeout = lock_timeout
        self._where = str(self.path)
        self._shared: _SharedShard | None = None
        self._pid = os.getpid()
        self._own_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"QdrantEdgeStorage(path={str(self.path)!r})"

    def _handle(self) -> _SharedShard:
        if self._pid != os.getpid():  # forked: the parent's shard is not ours to use
            self._shared, self._pid, self._own_lock = None, os.getpid(), threading.Lock()
        shared = self._shared
        if shared is None:
            with self._own_lock:
                if self._shared is None:
                    self._shared = _acquire(self.path, self.lock_timeout)
                shared = self._shared
        return shared

    def _run(self, fn: Any) -> Any:
        shared = self._handle()
        with shared.lock:
            shared.check()
            return fn(shared)

    def close(self) -> None:
        with self._own_lock:
            shared, self._shared = self._shared, None
        if shared is not None:
            _release(shared)

    def flush(self) -> None:
        """Write pending changes to the segments (the WAL already makes them durable)."""
        self._run(lambda s: s.shard.flush() if s.shard is not None else None)

    # -- primitives ---------------------------------------------------------------
    def _vector_size(self) -> int | None:
        return self._run(lambda s: s.size)

    def _create(self, size: int) -> None:
        def create(s: _SharedShard) -> None:
            if s.size is None:
                _require_space(self.path)
                s.create(size)

        self._run(create)

    def _upsert(self, points: list[tuple[str, list[float], dict[str, Any]]]) -> None:
        from qdrant_edge import Point, UpdateOperation

        op = UpdateOperation.upsert_points(
            [Point(id=pid, vector={VECTOR_NAME: vec}, payload=payload) for pid, vec, payload in points]
        )
        # the log and the segments take a few times the points' size
        _require_space(self.path, 4 * sum(8 * len(vec) + len(repr(payload)) for _pid, vec, payload in points))
        self._run(lambda s: s.shard.update(op))

    def _query(self, vector: list[float], conds: list[Cond], limit: int) -> list[tuple[dict[str, Any], float]]:
        from qdrant_edge import Query, QueryRequest

        request = QueryRequest(
            limit=limit,
            query=Query.Nearest(vector, using=VECTOR_NAME),
            filter=_to_filter(conds),
            with_payload=True,
        )
        hits = self._run(lambda s: s.shard.query(request) if s.shard is not None else [])
        return [(dict(h.payload or {}), float(h.score)) for h in hits]

    def _scroll(self, conds: list[Cond], limit: int, newest_first: bool | None) -> list[dict[str, Any]]:
        from qdrant_edge import Direction, OrderBy, ScrollRequest

        order = None
        if newest_first is not None:
            order = OrderBy("created_ts", Direction.Desc if newest_first else Direction.Asc)
        request = ScrollRequest(limit=limit, filter=_to_filter(conds), with_payload=True, order_by=order)
        records, _ = self._run(lambda s: s.shard.scroll(request) if s.shard is not None else ([], None))
        return [dict(r.payload or {}) for r in records]

    def _count(self, conds: list[Cond]) -> int:
        from qdrant_edge import CountRequest

        request = CountRequest(exact=True, filter=_to_filter(conds))
        return int(self._run(lambda s: s.shard.count(request) if s.shard is not None else 0))

    def _facet(self, key: str, conds: list[Cond]) -> dict[str, int]:
        from qdrant_edge import FacetRequest

        request = FacetRequest(key=key, limit=FACET_LIMIT, exact=True, filter=_to_filter(conds))
        response = self._run(lambda s: s.shard.facet(request) if s.shard is not None else [])
        # Deleted points can leave zero-count values in the keyword index: drop them.
        return {str(hit.value): int(hit.count) for hit in response if hit.count > 0}

    def _delete(self, conds: list[Cond]) -> None:
        from qdrant_edge import UpdateOperation

        # Every record carries "/" among its ancestors: that is the match-all filter.
        op = UpdateOperation.delete_points_by_filter(_to_filter(conds or [Cond("eq", "scope_ancestors", "/")]))
        _require_space(self.path)  # a delete is written to the log too
        self._run(lambda s: s.shard.update(op) if s.shard is not None else None)

    def _retrieve(self, ids: list[str], with_vector: bool) -> list[tuple[dict[str, Any], list[float] | None]]:
        found = self._run(
            lambda s: s.shard.retrieve(ids, with_payload=True, with_vector=with_vector)
            if s.shard is not None
            else []
        )
        out: list[tuple[dict[str, Any], list[float] | None]] = []
        for rec in found:
            vec = rec.vector.get(VECTOR_NAME) if isinstance(rec.vector, dict) else rec.vector
            out.append((dict(rec.payload or {}), list(vec) if vec else None))
        return out

    def _drop(self) -> None:
        # No damage check here: dropping is how a store that cannot be loaded is repaired.
        shared = self._handle()
        with shared.lock:
            shared.drop()
