"""``@persist``: save a flow's state after its methods run, restore it by id.

On a class, every method's completion saves the state; on a method, only that
method's. The store is keyed by the state's ``id``: kicking off a flow with
``inputs={"id": <saved id>}`` restores the latest saved state before the
other inputs are applied -- resuming a long process where it left off.

The default store is :class:`SQLiteFlowPersistence` (stdlib ``sqlite3``) at
``$CREWGRAPH_STORAGE_DIR/flow_states.db``, else ``./.crewgraph/flow_states.db``.
The path is resolved, and the file created, on first save or load, so merely
decorating a class touches no disk.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from crewgraph.flow.decorators import PERSIST

__all__ = ["PERSIST", "FlowPersistence", "SQLiteFlowPersistence", "default_db_path", "persist"]

logger = logging.getLogger("crewgraph.flow")

T = TypeVar("T")


class FlowPersistence(ABC):
    """Where flow states go. Implement these three to store them anywhere."""

    @abstractmethod
    def init_db(self) -> None:
        """Prepare the store (idempotent)."""

    @abstractmethod
    def save_state(self, flow_uuid: str, method_name: str, state_data: dict[str, Any] | BaseModel) -> None:
        """Save the state of flow ``flow_uuid`` as it was after ``method_name``."""

    @abstractmethod
    def load_state(self, flow_uuid: str) -> dict[str, Any] | None:
        """The latest saved state of ``flow_uuid``, or None."""


def default_db_path() -> Path:
    root = os.environ.get("CREWGRAPH_STORAGE_DIR")
    base = Path(root).expanduser() if root else Path.cwd() / ".crewgraph"
    return base / "flow_states.db"


class SQLiteFlowPersistence(FlowPersistence):
    """Flow states in one SQLite table (every save is a row; loading takes the latest)."""

    def __init__(self, db_path: str | Path | None = None) -> None:
        self._given = Path(db_path).expanduser() if db_path is not None else None
        self._lock = threading.Lock()
        self._ready: set[Path] = set()

    @property
    def db_path(self) -> Path:
        """The given path, else the default -- read at each use, so the environment counts."""
        return self._given or default_db_path()

    @contextmanager
    def _connect(self, path: Path) -> Iterator[Any]:
        """A connection for one operation: committed on success, always closed."""
        import sqlite3

        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), timeout=30)
        try:
            with conn:
                yield conn
        finally:
            conn.close()

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

    def __repr__(self) -> str:
        # The resolved path (the default follows CREWGRAPH_STORAGE_DIR): messages name the real file.
        return f"SQLiteFlowPersistence(db_path={str(self.db_path)!r})"


_shared: SQLiteFlowPersistence | None = None


def _default() -> SQLiteFlowPersistence:
    global _shared
    if _shared is None:
        _shared = SQLiteFlowPersistence()
    return _shared


def persist(persistence: Any = None, verbose: bool = False) -> Any:
    """Persist flow state after methods run: ``@persist``, ``@persist()`` or
    ``@persist(SQLiteFlowPersistence("path.db"))``, on a Flow class or on a method."""
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
