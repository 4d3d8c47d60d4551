"""``@persist``: save a flow's state after its methods run, restore it by id.

On a class, every method's completion saves the state; on a method, only that
method's. The store is keyed by the state's ``id``: kicking off a flow with
``inputs={"id": <saved id>}`` restores the latest saved state before the
other inputs are applied -- resuming a long process where it left off.

The default store is :class:`SQLiteFlowPersistence` (stdlib ``sqlite3``) at
``$CREWGRAPH_STORAGE_DIR/flow_states.db``, else ``./.crewgraph/flow_states.db``.
The path is resolved, and the file created, on first save or load, so merely
decorating a class touches no disk.

On PostgreSQL (many processes or machines sharing flow runs) the store is
:class:`~crewgraph.flow._postgres_persistence.PostgresFlowPersistence`:
``@persist("postgresql://...")``, or ``$CREWGRAPH_STORE_URL`` for the default store;
:func:`flow_persistence` opens either kind from a path or URL.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from crewgraph.flow.decorators import PERSIST

if TYPE_CHECKING:
    from crewgraph.flow.async_feedback.types import PendingFeedbackContext

__all__ = [
    "PERSIST",
    "FlowPersistence",
    "SQLiteFlowPersistence",
    "default_db_path",
    "flow_persistence",
    "persist",
    "resolve_class_store",
]

logger = logging.getLogger("crewgraph.flow")

T = TypeVar("T")


@contextmanager
def keeping_fence(fences: dict[str, Any], key: str, keeper: Any) -> Iterator[None]:
    """``fences[key]`` is ``keeper`` inside the block (the lease a store's writes for ``key`` check:
    fencing), the previous one restored after; ``keeper`` None leaves the writes unfenced."""
    if keeper is None:
        yield
        return
    previous = fences.get(key)
    fences[key] = keeper
    try:
        yield
    finally:
        if previous is None:
            fences.pop(key, None)
        else:
            fences[key] = previous


class FlowPersistence(BaseModel, ABC):
    """Where flow states go. Implement ``init_db``/``save_state``/``load_state`` to store
    them anywhere; a pydantic model, so a subclass declares its settings as fields.

    A store that also implements the run journal (``supports_runs = True``: the
    ``save_run``/``load_run``/``latest_run``/``save_step``/``load_steps`` methods) lets a
    killed or paused run resume without re-running the methods that completed;
    :class:`SQLiteFlowPersistence` does.
    """

    # extra="allow": a subclass written the pre-pydantic way (plain attributes set in its
    # own __init__) keeps working.
    model_config = ConfigDict(arbitrary_types_allowed=True, extra="allow")

    supports_runs: ClassVar[bool] = False

    persistence_type: str = "base"
    """What kind of store this is (CrewAI's field)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("__init__")
        if own is None or getattr(own, "_pydantic_ready", False):
            return

        @functools.wraps(own)
        def __init__(self: Any, *args: Any, **kw: Any) -> None:
            if getattr(self, "__pydantic_fields_set__", None) is None:
                # An __init__ that never calls super().__init__(): set the fields' defaults
                # first, so pydantic's machinery (and plain attributes) works.
                with contextlib.suppress(ValidationError):
                    BaseModel.__init__(self)
            own(self, *args, **kw)

        __init__._pydantic_ready = True  # type: ignore[attr-defined]
        cls.__init__ = __init__  # type: ignore[method-assign,assignment]

    def __hash__(self) -> int:  # stores are deduplicated by identity
        return id(self)

    @abstractmethod
    def init_db(self) -> None:
        """Prepare the store (idempotent)."""

    @abstractmethod
    def save_state(self, flow_uuid: str, method_name: str, state_data: dict[str, Any] | BaseModel) -> None:
        """Save the state of flow ``flow_uuid`` as it was after ``method_name``."""

    @abstractmethod
    def load_state(self, flow_uuid: str) -> dict[str, Any] | None:
        """The latest saved state of ``flow_uuid``, or None."""

    # -- pending human feedback (optional; CrewAI's API) ---------------------------
    def save_pending_feedback(
        self, flow_uuid: str, context: PendingFeedbackContext, state_data: dict[str, Any] | BaseModel
    ) -> None:
        """Save the state of a flow paused for feedback, with what it waits for. The default
        saves only the state (a store that cannot keep the context cannot be resumed with
        ``from_pending``): override it together with :meth:`load_pending_feedback`."""
        self.save_state(flow_uuid, context.method_name, state_data)

    def load_pending_feedback(self, flow_uuid: str) -> tuple[dict[str, Any], PendingFeedbackContext] | None:
        """``(state, context)`` of flow ``flow_uuid`` paused for feedback, or None."""
        return None

    def clear_pending_feedback(self, flow_uuid: str) -> None:
        """Forget the pending feedback of ``flow_uuid`` (called once it was resumed)."""

    # -- run journal (optional) -------------------------------------------------
    def save_run(self, run_id: str, flow_uuid: str, record: dict[str, Any]) -> None:
        """Create or replace the record of run ``run_id`` (status, flow class, pending input)."""
        raise NotImplementedError(f"{type(self).__name__} keeps no run journal")

    def load_run(self, run_id: str) -> dict[str, Any] | None:
        """The record of run ``run_id`` (with ``run_id`` and ``flow_uuid`` keys), or None."""
        raise NotImplementedError(f"{type(self).__name__} keeps no run journal")

    def latest_run(self, flow_uuid: str) -> dict[str, Any] | None:
        """The record of the latest run of state ``flow_uuid``, or None."""
        raise NotImplementedError(f"{type(self).__name__} keeps no run journal")

    def save_step(
        self, run_id: str, seq: int, method: str, output: bytes, flow_uuid: str, state_data: Any
    ) -> None:
        """Journal that ``method`` completed (the ``seq``-th completion of the run) and save
        the state after it -- atomically: both or neither."""
        raise NotImplementedError(f"{type(self).__name__} keeps no run journal")

    def load_steps(self, run_id: str) -> list[tuple[str, bytes]]:
        """The completions journaled for ``run_id``, in order: ``(method, output)``."""
        raise NotImplementedError(f"{type(self).__name__} keeps no run journal")


def default_db_path() -> Path:
    root = os.environ.get("CREWGRAPH_STORAGE_DIR")
    base = Path(root).expanduser() if root else Path.cwd() / ".crewgraph"
    return base / "flow_states.db"


class SQLiteFlowPersistence(FlowPersistence):
    """Flow states in one SQLite table (every save is a row; loading takes the latest),
    plus the run journal (runs and their completed methods) in two more."""

    model_config = ConfigDict(populate_by_name=True)

    supports_runs: ClassVar[bool] = True

    persistence_type: str = "SQLiteFlowPersistence"
    location: Path | None = Field(default=None, alias="db_path")
    """The database file (``db_path=``); None: the default, resolved at each use."""

    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _ready: set[Path] = PrivateAttr(default_factory=set)
    _fences: dict[str, Any] = PrivateAttr(default_factory=dict)

    def __init__(self, db_path: str | Path | None = None, **data: Any) -> None:
        from crewgraph.checkpoint.location import display, is_store_url

        if is_store_url(db_path):
            raise ValueError(f"SQLiteFlowPersistence takes a file path, not the URL {display(str(db_path))!r}: "
                             "for PostgreSQL use PostgresFlowPersistence(url), @persist(url) or flow_persistence(url)")
        given = Path(db_path).expanduser() if db_path is not None else None
        super().__init__(db_path=given, **data)

    @property
    def db_path(self) -> Path:
        """The given path, else the default -- read at each use, so the environment counts."""
        return self.location or default_db_path()

    @contextmanager
    def _connect(self, path: Path) -> Iterator[Any]:
        """A connection for one operation: committed on success, always closed."""
        import sqlite3

        from crewgraph._internal.store_errors import store_problem
        from crewgraph.errors import CheckpointError

        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(path), timeout=30)
        except (OSError, sqlite3.Error) as exc:
            raise CheckpointError(store_problem("flow state database", path, exc)) from exc
        try:
            with conn:
                yield conn
        except sqlite3.Error as exc:  # full disk, I/O error, damaged file: each said as what it is
            raise CheckpointError(store_problem("flow state database", path, exc)) from exc
        finally:
            conn.close()

    def lease_backend(self) -> Any:
        """The lease compare-and-set on this database (a ``leases`` table beside the flow
        tables, its own connection; see :mod:`crewgraph.flow._lease`)."""
        from crewgraph.checkpoint._sqlite_leases import SQLiteLeases

        return SQLiteLeases(self._ensure())

    @contextmanager
    def fence(self, key: str, keeper: Any) -> Iterator[None]:
        """Inside the block, writes for ``key`` (a run id or a state id) check in their own
        transaction that ``keeper``'s lease is still held (:mod:`crewgraph.checkpoint.lease`,
        fencing): a process that lost it cannot save over the new holder's work."""
        with keeping_fence(self._fences, key, keeper):
            yield

    def _fenced(self, conn: Any, path: Path, key: str) -> None:
        """Open the write transaction and refuse it (LeaseLostError) when ``key``'s lease was lost."""
        keeper = self._fences.get(key)
        if keeper is None:
            return
        from crewgraph.checkpoint._sqlite_leases import check_fence

        if not conn.in_transaction:
            conn.execute("BEGIN IMMEDIATE")  # the check and the write in one transaction
        check_fence(conn, keeper, path)

    def init_db(self) -> None:
        path = self.db_path
        with self._lock, self._connect(path) as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS flow_states ("
                " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                " flow_uuid TEXT NOT NULL,"
                " method_name TEXT NOT NULL,"
                " timestamp TEXT NOT NULL,"
                " state_json TEXT NOT NULL)"
            )
            conn.execute("CREATE INDEX IF NOT EXISTS idx_flow_states_uuid ON flow_states(flow_uuid)")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS flow_runs ("
                " run_id TEXT PRIMARY KEY,"
                " flow_uuid TEXT NOT NULL,"
                " updated TEXT NOT NULL,"
                " record_json TEXT NOT NULL)"
            )
            conn.execute("CREATE INDEX IF NOT EXISTS idx_flow_runs_uuid ON flow_runs(flow_uuid)")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS flow_steps ("
                " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                " run_id TEXT NOT NULL,"
                " seq INTEGER NOT NULL,"
                " method TEXT NOT NULL,"
                " output BLOB NOT NULL)"
            )
            conn.execute("CREATE INDEX IF NOT EXISTS idx_flow_steps_run ON flow_steps(run_id)")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS flow_pending_feedback ("
                " flow_uuid TEXT PRIMARY KEY,"
                " timestamp TEXT NOT NULL,"
                " context_json TEXT NOT NULL,"
                " state_json TEXT NOT NULL,"
                " output BLOB)"
            )
        self._ready.add(path)

    def _ensure(self) -> Path:
        path = self.db_path
        if path not in self._ready:
            self.init_db()
        return path

    def save_state(self, flow_uuid: str, method_name: str, state_data: dict[str, Any] | BaseModel) -> None:
        data = state_data.model_dump(mode="json") if isinstance(state_data, BaseModel) else state_data
        text = json.dumps(data, default=str)
        path = self._ensure()
        with self._lock, self._connect(path) as conn:
            self._fenced(conn, path, flow_uuid)
            conn.execute(
                "INSERT INTO flow_states (flow_uuid, method_name, timestamp, state_json) VALUES (?, ?, ?, ?)",
                (flow_uuid, method_name, datetime.now(UTC).isoformat(), text),
            )

    def load_state(self, flow_uuid: str) -> dict[str, Any] | None:
        path = self._ensure()
        with self._lock, self._connect(path) as conn:
            row = conn.execute(
                "SELECT state_json FROM flow_states WHERE flow_uuid = ? ORDER BY id DESC LIMIT 1",
                (flow_uuid,),
            ).fetchone()
        return dict(json.loads(row[0])) if row else None

    def save_pending_feedback(
        self, flow_uuid: str, context: PendingFeedbackContext, state_data: dict[str, Any] | BaseModel
    ) -> None:
        """The state (also as the latest state of ``flow_uuid``) and the context; the method's
        output is pickled too, so it comes back as the same object."""
        import pickle

        data = state_data.model_dump(mode="json") if isinstance(state_data, BaseModel) else state_data
        state_text = json.dumps(data, default=str)
        try:
            blob: bytes | None = pickle.dumps(context.method_output, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            blob = None  # the JSON form (str() of it) is all that comes back
        context_text = json.dumps(context.to_dict(), default=str)
        now = datetime.now(UTC).isoformat()
        path = self._ensure()
        with self._lock, self._connect(path) as conn:
            self._fenced(conn, path, flow_uuid)
            conn.execute(
                "INSERT INTO flow_states (flow_uuid, method_name, timestamp, state_json) VALUES (?, ?, ?, ?)",
                (flow_uuid, context.method_name, now, state_text),
            )
            conn.execute(
                "INSERT OR REPLACE INTO flow_pending_feedback (flow_uuid, timestamp, context_json, state_json, output)"
                " VALUES (?, ?, ?, ?, ?)",
                (flow_uuid, now, context_text, state_text, blob),
            )

    def load_pending_feedback(self, flow_uuid: str) -> tuple[dict[str, Any], PendingFeedbackContext] | None:
        import pickle

        from crewgraph.flow.async_feedback.types import PendingFeedbackContext

        path = self._ensure()
        with self._lock, self._connect(path) as conn:
            row = conn.execute(
                "SELECT context_json, state_json, output FROM flow_pending_feedback WHERE flow_uuid = ?",
                (flow_uuid,),
            ).fetchone()
        if row is None:
            return None
        context = PendingFeedbackContext.from_dict(json.loads(row[0]))
        if row[2] is not None:
            context.method_output = pickle.loads(row[2])
        return dict(json.loads(row[1])), context

    def clear_pending_feedback(self, flow_uuid: str) -> None:
        path = self._ensure()
        with self._lock, self._connect(path) as conn:
            conn.execute("DELETE FROM flow_pending_feedback WHERE flow_uuid = ?", (flow_uuid,))

    def save_run(self, run_id: str, flow_uuid: str, record: dict[str, Any]) -> None:
        text = json.dumps({**record, "run_id": run_id, "flow_uuid": flow_uuid}, default=str)
        path = self._ensure()
        with self._lock, self._connect(path) as conn:
            self._fenced(conn, path, run_id)
            conn.execute(
                "INSERT OR REPLACE INTO flow_runs (run_id, flow_uuid, updated, record_json) VALUES (?, ?, ?, ?)",
                (run_id, flow_uuid, datetime.now(UTC).isoformat(), text),
            )

    def load_run(self, run_id: str) -> dict[str, Any] | None:
        path = self._ensure()
        with self._lock, self._connect(path) as conn:
            row = conn.execute("SELECT record_json FROM flow_runs WHERE run_id = ?", (run_id,)).fetchone()
        return dict(json.loads(row[0])) if row else None

    def latest_run(self, flow_uuid: str) -> dict[str, Any] | None:
        path = self._ensure()
        with self._lock, self._connect(path) as conn:
            row = conn.execute(
                "SELECT record_json FROM flow_runs WHERE flow_uuid = ? ORDER BY updated DESC, rowid DESC LIMIT 1",
                (flow_uuid,),
            ).fetchone()
        return dict(json.loads(row[0])) if row else None

    def save_step(
        self, run_id: str, seq: int, method: str, output: bytes, flow_uuid: str, state_data: Any
    ) -> None:
        data = state_data.model_dump(mode="json") if isinstance(state_data, BaseModel) else state_data
        text = json.dumps(data, default=str)
        path = self._ensure()
        with self._lock, self._connect(path) as conn:  # one transaction: state and step together
            self._fenced(conn, path, run_id)
            conn.execute(
                "INSERT INTO flow_states (flow_uuid, method_name, timestamp, state_json) VALUES (?, ?, ?, ?)",
                (flow_uuid, method, datetime.now(UTC).isoformat(), text),
            )
            conn.execute(
                "INSERT INTO flow_steps (run_id, seq, method, output) VALUES (?, ?, ?, ?)",
                (run_id, seq, method, output),
            )

    def load_steps(self, run_id: str) -> list[tuple[str, bytes]]:
        path = self._ensure()
        with self._lock, self._connect(path) as conn:
            rows = conn.execute(
                "SELECT method, output FROM flow_steps WHERE run_id = ? ORDER BY seq, id", (run_id,)
            ).fetchall()
        return [(str(m), bytes(o)) for m, o in rows]

    def list_runs(self, limit: int = 50) -> list[dict[str, Any]]:
        """The latest run records, newest first (for ``crewgraph flows list`` and the web UI),
        each with ``updated_at``: when its record was last saved (ISO 8601, UTC)."""
        path = self._ensure()
        with self._lock, self._connect(path) as conn:
            rows = conn.execute(
                "SELECT record_json, updated FROM flow_runs ORDER BY updated DESC, rowid DESC LIMIT ?", (limit,)
            ).fetchall()
        return [{**json.loads(r[0]), "updated_at": r[1]} for r in rows]

    def __repr__(self) -> str:
        # The resolved path (the default follows CREWGRAPH_STORAGE_DIR): messages name the real file.
        return f"SQLiteFlowPersistence(db_path={str(self.db_path)!r})"


_shared: SQLiteFlowPersistence | None = None
_shared_pg: dict[str, FlowPersistence] = {}


def _default() -> FlowPersistence:
    """The store of flows given none: ``$CREWGRAPH_STORE_URL``'s PostgreSQL, else the default SQLite file."""
    global _shared
    from crewgraph.checkpoint.location import env_store_url

    url = env_store_url()
    if url is not None:
        if url not in _shared_pg:
            _shared_pg[url] = flow_persistence(url)
        return _shared_pg[url]
    if _shared is None:
        _shared = SQLiteFlowPersistence()
    return _shared


def flow_persistence(location: str | Path | None = None) -> FlowPersistence:
    """The flow store at ``location``: a ``postgresql://`` URL (``PostgresFlowPersistence``), a
    SQLite file path, or None (``$CREWGRAPH_STORE_URL``, else the default file)."""
    from crewgraph.checkpoint.location import env_store_url, is_store_url

    location = env_store_url() if location is None else location
    if is_store_url(location):
        from crewgraph.flow._postgres_persistence import PostgresFlowPersistence

        return PostgresFlowPersistence(str(location))
    return SQLiteFlowPersistence(location)


def __getattr__(name: str) -> Any:
    if name == "PostgresFlowPersistence":  # its module imports this one
        from crewgraph.flow._postgres_persistence import PostgresFlowPersistence

        return PostgresFlowPersistence
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def persist(persistence: Any = None, verbose: bool = False) -> Any:
    """Persist flow state after methods run: ``@persist``, ``@persist()``,
    ``@persist(SQLiteFlowPersistence("path.db"))`` or ``@persist("postgresql://...")``, on a
    Flow class or on a method."""
    from crewgraph.checkpoint.location import is_store_url

    if is_store_url(persistence):
        persistence = flow_persistence(persistence)
    if persistence is not None and not isinstance(persistence, FlowPersistence):
        if isinstance(persistence, type) or callable(persistence):
            return _apply(persistence, None, verbose)  # bare @persist
        raise TypeError(f"persist() takes a FlowPersistence, got {persistence!r}")

    def decorator(target: T) -> T:
        return _apply(target, persistence, verbose)

    return decorator


def _apply(target: T, persistence: FlowPersistence | None, verbose: bool) -> T:
    setattr(target, PERSIST, (persistence, verbose))
    return target


def resolve(marker: Any, override: FlowPersistence | None) -> tuple[FlowPersistence, bool] | None:
    """The store a ``PERSIST`` marker stands for (``override``: the flow's ``persistence=``)."""
    if not isinstance(marker, tuple):
        return None
    store, verbose = marker
    return (store or override or _default()), bool(verbose)


def save(store: FlowPersistence, flow_uuid: str, method: str, state: Any, verbose: bool) -> None:
    store.save_state(flow_uuid, method, state)
    if verbose:
        logger.info("saved state %s after %s", flow_uuid, method)


def resolve_class_store(cls: type | None, flow: Any = None) -> FlowPersistence:
    """The class-level store of a flow class (``@persist(...)`` on it, else the flow's
    ``persistence=``, else the default SQLite store) -- where its runs are journaled."""
    marker = getattr(cls, PERSIST, None) if cls is not None else None
    override = getattr(flow, "_persistence", None) if flow is not None else None
    found = resolve(marker if isinstance(marker, tuple) else (None, False), override)
    assert found is not None
    return found[0]
