"""The lease compare-and-set on SQLite: one ``leases`` table in the store's own file.

Every change is one ``BEGIN IMMEDIATE`` transaction, which takes SQLite's write lock up
front: of two processes reading "free" at once, the second waits for the first's commit and
then reads "held". That is the whole compare-and-set on one machine (SQLite's file locks do
not hold across network file systems: use the PostgreSQL store for several machines).

The table is created with ``IF NOT EXISTS`` beside the store's tables, on its own connection,
so the renewal thread never queues behind a store write and older crewgraph versions simply
ignore it.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from crewgraph.checkpoint.lease import HeldBy, LeaseHolder, LeaseKeeper, fence_check, process_gone
from crewgraph.errors import CheckpointError

__all__ = ["SQLiteLeases", "check_fence"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS leases (
    resource    TEXT PRIMARY KEY,
    token       TEXT NOT NULL,
    holder      TEXT NOT NULL,
    machine     TEXT NOT NULL,
    pid         INTEGER NOT NULL,
    started     TEXT NOT NULL,
    acquired_at REAL NOT NULL,
    expires_at  REAL NOT NULL
)
"""
_BUSY_TIMEOUT_S = 30.0


class SQLiteLeases:
    """:class:`~crewgraph.checkpoint.lease.LeaseBackend` over the SQLite file at ``path``."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.where = repr(str(self.path))
        self._lock = threading.Lock()
        try:
            self._conn: sqlite3.Connection | None = sqlite3.connect(
                str(self.path), timeout=_BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode=WAL").fetchone()
            self._conn.execute("PRAGMA synchronous=FULL")
            self._conn.execute(_SCHEMA)
        except sqlite3.Error as exc:
            raise self._problem(exc) from exc

    def try_acquire(self, resource: str, holder: LeaseHolder, ttl: float) -> HeldBy | None:
        with self._transaction() as conn:
            now = time.time()
            row = conn.execute("SELECT token, holder, machine, pid, started, expires_at FROM leases"
                               " WHERE resource = ?", (resource,)).fetchone()
            if row is not None:
                token, name, machine, pid, started, expires = row
                free = token == holder.token or expires <= now or process_gone(machine, int(pid), started)
                if not free:
                    return HeldBy(resource, name, float(expires))
            conn.execute(
                "INSERT OR REPLACE INTO leases (resource, token, holder, machine, pid, started, acquired_at,"
                " expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (resource, holder.token, holder.name, holder.machine, holder.pid, holder.started, now, now + ttl),
            )
        return None

    def renew(self, resource: str, holder: LeaseHolder, ttl: float) -> bool:
        with self._transaction() as conn:
            cursor = conn.execute("UPDATE leases SET expires_at = ? WHERE resource = ? AND token = ?",
                                  (time.time() + ttl, resource, holder.token))
            return cursor.rowcount == 1

    def release(self, resource: str, holder: LeaseHolder) -> None:
        with self._transaction() as conn:
            conn.execute("DELETE FROM leases WHERE resource = ? AND token = ?", (resource, holder.token))

    def holder_of(self, resource: str) -> HeldBy | None:
        """Who holds ``resource`` now (None: nobody, or an expired lease)."""
        with self._transaction() as conn:
            row = conn.execute("SELECT holder, expires_at FROM leases WHERE resource = ?", (resource,)).fetchone()
        if row is None or row[1] <= time.time():
            return None
        return HeldBy(resource, row[0], float(row[1]))

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # helpers ------------------------------------------------------------
    def _transaction(self) -> _Transaction:
        return _Transaction(self)

    def _problem(self, exc: BaseException) -> CheckpointError:
        from crewgraph._internal.store_errors import store_problem

        return CheckpointError(store_problem("lease table of", self.path, exc))


def check_fence(conn: sqlite3.Connection, keeper: LeaseKeeper, path: Path) -> None:
    """Fence a write in ``conn``'s open transaction on the store file ``path``: when the lease
    lives in that file, its row is read in this very transaction (a true compare-and-set: no
    process can take the lease between the check and the write); else the backend checks it."""
    backend = keeper.backend
    if isinstance(backend, SQLiteLeases) and _same_file(backend.path, path):
        try:
            row = conn.execute("SELECT token, holder FROM leases WHERE resource = ?", (keeper.resource,)).fetchone()
        except sqlite3.OperationalError:  # no leases table: nobody holds anything here
            row = None
        fence_check(keeper, None if row is None else (str(row[0]), str(row[1])))
        return
    keeper.verify()


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return str(a) == str(b)


class _Transaction:
    """``BEGIN IMMEDIATE ... COMMIT`` on the backend's connection, under its lock."""

    def __init__(self, backend: SQLiteLeases) -> None:
        self.backend = backend

    def __enter__(self) -> sqlite3.Connection:
        self.backend._lock.acquire()
        conn = self.backend._conn
        if conn is None:
            self.backend._lock.release()
            raise CheckpointError(f"the lease table of {self.backend.where} is closed")
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            self.backend._lock.release()
            raise self.backend._problem(exc) from exc
        return conn

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> None:
        conn = self.backend._conn
        try:
            assert conn is not None
            if exc is None:
                conn.execute("COMMIT")
            elif conn.in_transaction:
                conn.execute("ROLLBACK")
        except sqlite3.Error as error:
            if conn is not None and conn.in_transaction:
                conn.execute("ROLLBACK")
            raise self.backend._problem(error) from error
        finally:
            self.backend._lock.release()
        if isinstance(exc, sqlite3.Error):
            raise self.backend._problem(exc) from exc
