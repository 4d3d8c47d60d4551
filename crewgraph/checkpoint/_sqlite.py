"""Opening the checkpoint database: schema, pragmas, and error translation.

Durability choice: **WAL journal + ``synchronous=FULL``**.

- Against a killed process (SIGKILL, OOM killer, a crash at any instant)
  WAL alone is enough: a commit appends the transaction to the ``-wal`` file
  with ``write()`` before ``COMMIT`` returns, the kernel keeps those pages
  whatever happens to the process, and the next opener replays the WAL. A
  half-written transaction has no commit frame and is ignored, so the file
  is never torn and every acknowledged save survives.
- ``FULL`` additionally fsyncs the WAL on every commit, so acknowledged saves
  also survive an OS crash or power loss (``NORMAL`` may lose the last few
  commits there). The price is one fsync per finished node; a node is an LLM
  call or a tool run lasting from milliseconds to minutes, so the fsync is
  noise, and losing a paid-for LLM result is not.
- WAL also lets readers (``crewgraph checkpoints list`` in another terminal)
  read while a run writes.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from crewgraph.checkpoint._shared_context import ENTRIES_TABLE
from crewgraph.checkpoint.lease import Fences
from crewgraph.errors import CheckpointError

__all__ = ["LATEST", "LATEST_INFO", "RUN_COLUMNS", "SCHEMA_VERSION", "SQLiteTransactions", "connect", "corrupt_error"]

SCHEMA_VERSION = 2
"""1: runs, node_outputs. 2: context_entries, the text default-context prompts share (see
:mod:`crewgraph.checkpoint._shared_context`); a version-1 file gets the table when opened."""
_BUSY_TIMEOUT_S = 30.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id        TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    status        TEXT NOT NULL,
    created_at    REAL NOT NULL,
    updated_at    REAL NOT NULL,
    parent_run_id TEXT,
    branch        TEXT,
    meta          TEXT NOT NULL DEFAULT '{}',
    error         TEXT
);
CREATE INDEX IF NOT EXISTS runs_by_name ON runs (name, created_at);
CREATE TABLE IF NOT EXISTS node_outputs (
    run_id     TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    node_id    TEXT NOT NULL,
    seq        INTEGER NOT NULL,
    output     BLOB,
    restorable INTEGER NOT NULL,
    info       TEXT NOT NULL DEFAULT '{}',
    saved_at   REAL NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE INDEX IF NOT EXISTS node_outputs_by_node ON node_outputs (run_id, node_id, seq);
""" + ENTRIES_TABLE


# The latest save of each node of a run (a flow may run a method node several times).
LATEST = """
    SELECT o.node_id, o.seq, o.output, o.restorable, o.info, o.saved_at
    FROM node_outputs AS o
    WHERE o.run_id = ?
      AND o.seq = (SELECT MAX(i.seq) FROM node_outputs AS i
                   WHERE i.run_id = o.run_id AND i.node_id = o.node_id)
    ORDER BY o.seq
"""
LATEST_INFO = LATEST.replace("o.output", "NULL")  # what nodes() lists: the outputs stay on disk

RUN_COLUMNS = """
    r.run_id, r.name, r.status, r.created_at, r.updated_at, r.parent_run_id, r.branch,
    r.meta, r.error,
    (SELECT COUNT(*) FROM node_outputs AS o
     WHERE o.run_id = r.run_id AND o.restorable = 1
       AND o.seq = (SELECT MAX(i.seq) FROM node_outputs AS i
                    WHERE i.run_id = o.run_id AND i.node_id = o.node_id)) AS nodes_completed
"""


def corrupt_error(path: Path | str, exc: BaseException) -> CheckpointError:
    """The error for a file SQLite cannot use, naming the file and the way out: a full disk, an
    I/O error and a permission problem are told apart from a damaged file (see store_errors)."""
    from crewgraph._internal.store_errors import store_problem

    return CheckpointError(store_problem("checkpoint database", path, exc))


def connect(path: Path) -> sqlite3.Connection:
    """Open ``path`` (creating parent folders and the schema), with WAL + FULL sync.

    One connection is shared by all threads of a store (``check_same_thread=False``);
    the store serialises access with its own lock. ``isolation_level=None`` turns off
    the sqlite3 module's implicit transactions so each write is exactly the
    ``BEGIN IMMEDIATE ... COMMIT`` the store issues.
    """
    if str(path) != ":memory:":
        if path.is_dir():  # not "corrupt": advising to delete it would be wrong (think --db /tmp)
            raise CheckpointError(
                f"checkpoint database path {str(path)!r} is a directory; give the path of a file "
                f"in it, e.g. {str(path / 'checkpoints.db')!r}"
            )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CheckpointError(
                f"cannot create the folder for checkpoints {str(path)!r}: {exc}"
            ) from exc
    try:
        conn = sqlite3.connect(
            str(path), timeout=_BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
    except sqlite3.Error as exc:
        raise corrupt_error(path, exc) from exc
    try:
        _prepare(conn)
    except sqlite3.Error as exc:
        conn.close()
        raise corrupt_error(path, exc) from exc
    except CheckpointError:
        conn.close()
        raise
    return conn


def _prepare(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA journal_mode=WAL").fetchone()
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise CheckpointError(
            f"checkpoint database schema version {version} is newer than this crewgraph "
            f"understands ({SCHEMA_VERSION}); upgrade crewgraph to read it"
        )
    if version == SCHEMA_VERSION:
        return
    # Several processes may open a fresh file at once: create under a write lock,
    # with IF NOT EXISTS, and stamp the version in the same transaction.
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


class SQLiteTransactions(Fences):
    """Transactions on one shared connection, for the stores that keep one (checkpoints, batches).

    A store sets ``path``, ``_lock`` and ``_conn`` (``None`` once closed) and names itself in
    ``closed_noun`` for the error a closed store raises. Its writes for a fenced key (a leased
    run, a leased batch input: :meth:`fence`) call :meth:`_fenced` in their transaction.
    """

    closed_noun: ClassVar[str] = "checkpoint store"
    path: Path
    _lock: threading.RLock
    _conn: sqlite3.Connection | None

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot (one read transaction) under the store lock."""
        with self._lock:
            conn = self._connection()
            try:
                conn.execute("BEGIN")
                try:
                    yield conn
                finally:
                    conn.execute("COMMIT")
            except sqlite3.Error as exc:
                raise self._translate(exc) from exc

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: ``BEGIN IMMEDIATE`` (take the write lock up front, so
        two writers never deadlock upgrading) ... ``COMMIT``, or rollback on error."""
        with self._lock:
            conn = self._connection()
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                except BaseException:
                    # SQLite has already rolled back after some errors (SQLITE_FULL, SQLITE_IOERR):
                    # a second ROLLBACK would fail and hide the error that says what happened.
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise self._translate(exc) from exc

    def lease_backend(self) -> Any:
        """The lease compare-and-set on this store's file (its own connection; see
        :mod:`crewgraph.checkpoint.lease`), or None for an in-memory store (one process)."""
        if str(self.path) == ":memory:":
            return None
        from crewgraph.checkpoint._sqlite_leases import SQLiteLeases

        return SQLiteLeases(self.path)

    def _fenced(self, conn: sqlite3.Connection, key: str) -> None:
        """In a write transaction: refuse it (LeaseLostError) when ``key``'s lease was lost."""
        keeper = self.fence_for(key)
        if keeper is not None:
            from crewgraph.checkpoint._sqlite_leases import check_fence

            check_fence(conn, keeper, self.path)

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise CheckpointError(f"{self.closed_noun} {str(self.path)!r} is closed")
        return self._conn

    def _translate(self, exc: sqlite3.Error) -> CheckpointError:
        return corrupt_error(self.path, exc)
