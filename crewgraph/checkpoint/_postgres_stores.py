"""The checkpoint store, the batch store and run keys on PostgreSQL.

Each store is its SQLite class with PostgreSQL's transactions underneath
(:class:`~crewgraph.checkpoint._postgres.PGTransactions`): the same methods, the same SQL
(rewritten per statement), the same guarantees. A save returns once PostgreSQL committed it
(its WAL is flushed at commit), so a process killed at any instant leaves every returned save
and nothing half-written, exactly as on SQLite. Open them through
:func:`crewgraph.checkpoint.location.open_checkpoint_store` / ``open_batch_store`` with a
``postgresql://`` URL (``?schema=NAME`` picks the schema, default ``crewgraph``).
"""

from __future__ import annotations

import time
from typing import Literal

from crewgraph.checkpoint._postgres import (
    PGConnection,
    PGTransactions,
    connect,
    pg_problem,
    psycopg_module,
)
from crewgraph.checkpoint._shared_context import SharedContext
from crewgraph.checkpoint.batch_store import BatchStore
from crewgraph.checkpoint.sqlite_store import SQLiteCheckpointStore
from crewgraph.errors import CheckpointError

__all__ = ["PostgresBatchStore", "PostgresCheckpointStore", "claim_run_key_pg"]


class PostgresCheckpointStore(PGTransactions, SQLiteCheckpointStore):  # type: ignore[misc]
    """Runs and their finished nodes' outputs in a PostgreSQL schema (see the module docstring).

    Shared by a process's threads (one connection under a lock, as on SQLite) and by any
    number of processes on any machines (the server's transactions; writers serialised).
    """

    closed_noun = "checkpoint store"
    noun = "checkpoint store"

    def __init__(self, url: str, *, keep_last: int | None = None,
                 on_unpicklable: Literal["skip", "raise"] = "skip") -> None:
        if keep_last is not None and keep_last < 1:
            raise ValueError("keep_last must be >= 1 or None")
        if on_unpicklable not in ("skip", "raise"):
            raise ValueError("on_unpicklable must be 'skip' or 'raise'")
        self.keep_last = keep_last
        self.on_unpicklable = on_unpicklable
        self._shared = SharedContext()
        self._open(url)

    def __enter__(self) -> PostgresCheckpointStore:
        return self

    def __repr__(self) -> str:
        return f"PostgresCheckpointStore({self.path!r})"


class PostgresBatchStore(PGTransactions, BatchStore):  # type: ignore[misc]
    """Batches and their items in a PostgreSQL schema, beside the runs they made."""

    closed_noun = "batch store"
    noun = "batch store"

    def __init__(self, url: str) -> None:
        self._open(url)

    def __enter__(self) -> PostgresBatchStore:
        return self

    def __repr__(self) -> str:
        return f"PostgresBatchStore({self.path!r})"


def claim_run_key_pg(url: str, scope: str, run_key: str, new_id: str, fingerprint: str) -> tuple[str, str]:
    """``(target id, its fingerprint)`` bound to ``run_key`` in ``scope``, binding ``new_id`` when
    the key is new: one ``INSERT ... ON CONFLICT DO NOTHING`` (atomic across processes) then the read."""
    psycopg = psycopg_module()
    conn = PGConnection(connect(url, "run keys of"))
    try:
        conn.execute("INSERT INTO run_keys (scope, run_key, target_id, fingerprint, created_at)"
                     " VALUES (?, ?, ?, ?, ?) ON CONFLICT (scope, run_key) DO NOTHING",
                     (scope, run_key, new_id, fingerprint, time.time()))
        row = conn.execute("SELECT target_id, fingerprint FROM run_keys WHERE scope = ? AND run_key = ?",
                           (scope, run_key)).fetchone()
    except psycopg.Error as exc:
        raise CheckpointError(pg_problem("run keys of", url, exc)) from exc
    finally:
        conn.close()
    if row is None:  # deleted between the two statements (a delete_all): bind it again
        return claim_run_key_pg(url, scope, run_key, new_id, fingerprint)
    return str(row[0]), str(row[1])

