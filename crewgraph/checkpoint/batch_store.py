"""Batch records: which inputs of a ``kickoff_for_each`` batch finished, in the checkpoint file.

A batch lives in the same SQLite file as the runs it made (the crew's
``CheckpointConfig.path``, by default ``./.crewgraph/checkpoints/checkpoints.db``),
in two tables of its own:

- ``batches``: one row per batch (its id, the crew name, how many inputs, a
  digest of every input's fingerprint, status ``running``/``completed``/``failed``);
- ``batch_items``: one row per input (its position, the fingerprint of its
  inputs dict, the checkpointed run that computes it, status ``pending``/
  ``running``/``completed``/``failed``, the error, and the finished
  ``CrewOutput`` pickled without its run graph).

Each input is an ordinary checkpointed crew run (a row of ``runs`` with its
node outputs), so an input interrupted half-way resumes from its finished
nodes, and a finished input is never run again: resuming a batch
(``kickoff_for_each(inputs, from_checkpoint=batch_id)``) restores the outputs
of completed inputs and re-runs only the others. The fingerprints let a
resume refuse a different inputs list instead of pairing old outputs with new
inputs. Keeping batches next to the runs (not in a second file) means one
path moves, backs up or deletes everything a batch made.

The tables are created with ``IF NOT EXISTS`` beside the run tables; older
crewgraph versions simply ignore them.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from crewgraph.checkpoint import _codec
from crewgraph.checkpoint._sqlite import SQLiteTransactions, connect
from crewgraph.errors import CheckpointError
from crewgraph.ids import new_run_id

__all__ = [
    "BATCH_ITEM_STATUSES",
    "BatchInfo",
    "BatchItemInfo",
    "BatchStore",
    "RunTransfer",
    "input_fingerprint",
    "inputs_digest",
    "item_key",
]

BATCH_ITEM_STATUSES = ("pending", "running", "completed", "failed")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS batches (
    batch_id      TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    status        TEXT NOT NULL,
    total         INTEGER NOT NULL,
    inputs_digest TEXT NOT NULL,
    created_at    REAL NOT NULL,
    updated_at    REAL NOT NULL,
    meta          TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS batches_by_name ON batches (name, created_at);
CREATE TABLE IF NOT EXISTS batch_items (
    batch_id    TEXT NOT NULL REFERENCES batches (batch_id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    fingerprint TEXT NOT NULL,
    run_id      TEXT,
    status      TEXT NOT NULL,
    error       TEXT,
    output      BLOB,
    attempts    INTEGER NOT NULL DEFAULT 0,
    updated_at  REAL NOT NULL,
    PRIMARY KEY (batch_id, idx)
);
"""

_COUNTS = """
    SELECT status, COUNT(*) FROM batch_items WHERE batch_id = ? GROUP BY status
"""


def item_key(batch_id: str, index: int) -> str:
    """The key fencing an input's writes (:meth:`BatchStore.fence`) and its lease's resource."""
    return f"batch:{batch_id}:{index}"


def input_fingerprint(inputs: dict[str, Any] | None) -> str:
    """A short stable hash of one inputs dict (canonical JSON; non-JSON values by repr)."""
    text = json.dumps(inputs or {}, sort_keys=True, default=repr, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


def inputs_digest(fingerprints: Sequence[str]) -> str:
    """One hash of a whole inputs list (order matters), to find "the same batch" fast."""
    return hashlib.sha256("\n".join(fingerprints).encode("ascii")).hexdigest()[:24]


class BatchItemInfo(BaseModel):
    """One input of a batch (without its output)."""

    model_config = ConfigDict(frozen=True)

    index: int
    fingerprint: str
    status: str
    run_id: str | None = None
    error: str | None = None
    attempts: int = 0
    has_output: bool = False


class BatchInfo(BaseModel):
    """One batch: its inputs counted by status."""

    model_config = ConfigDict(frozen=True)

    batch_id: str
    name: str
    status: str
    total: int
    inputs_digest: str
    created_at: datetime
    updated_at: datetime
    counts: dict[str, int] = Field(default_factory=dict)
    meta: dict[str, Any] = Field(default_factory=dict)

    @property
    def completed(self) -> int:
        return self.counts.get("completed", 0)

    @property
    def failed(self) -> int:
        return self.counts.get("failed", 0)


class RunTransfer(BaseModel):
    """A checkpointed run's rows, to move a run between stores (a Ray worker's and the driver's)."""

    run_id: str
    name: str
    status: str
    meta: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None
    rows: list[tuple[str, bytes | None, int, str]] = Field(default_factory=list)
    """(node_id, pickled output or None, restorable, info JSON), latest save of each node, in order."""
    entries: list[tuple[str, int, str]] = Field(default_factory=list)
    """(list key, index, text): the run's shared context entries the outputs refer to
    (:mod:`crewgraph.checkpoint._shared_context`)."""


class BatchStore(SQLiteTransactions):
    """Batches and their items in a checkpoint database (see the module docstring).

    One connection guarded by a lock, like :class:`SQLiteCheckpointStore`; every
    method is one committed transaction, so a process killed at any instant
    leaves each item either as it was or with its new status.
    """

    closed_noun = "batch store"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = connect(self.path)
        try:
            # Batch bookkeeping commits without its own fsync: WAL keeps every commit through a
            # killed process, and the runs' node saves (synchronous=FULL) fsync the same WAL, which
            # holds these commits too. Power loss can cost at most the last item states, and those
            # inputs then resume from their checkpointed runs.
            self._conn.execute("PRAGMA synchronous=NORMAL")
            with self._write() as conn:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> BatchStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"BatchStore({str(self.path)!r})"

    # batches -------------------------------------------------------------
    def create_batch(self, name: str, fingerprints: Sequence[str], *, meta: dict[str, Any] | None = None,
                     batch_id: str | None = None) -> str:
        """Record a new batch with one ``pending`` item per fingerprint; returns its id.
        ``batch_id`` (a run key's): created only when no batch has it yet (two processes may try)."""
        given = batch_id is not None
        batch_id = batch_id or new_run_id()
        now = time.time()
        with self._write() as conn:
            if given and conn.execute("SELECT 1 FROM batches WHERE batch_id = ?", (batch_id,)).fetchone():
                return batch_id
            conn.execute(
                "INSERT INTO batches (batch_id, name, status, total, inputs_digest, created_at, updated_at, meta)"
                " VALUES (?, ?, 'running', ?, ?, ?, ?, ?)",
                (batch_id, name, len(fingerprints), inputs_digest(fingerprints), now, now,
                 _codec.dump_json(meta or {})),
            )
            conn.executemany(
                "INSERT INTO batch_items (batch_id, idx, fingerprint, status, updated_at)"
                " VALUES (?, ?, ?, 'pending', ?)",
                [(batch_id, i, fp, now) for i, fp in enumerate(fingerprints)],
            )
        return batch_id

    def get_batch(self, batch_id: str) -> BatchInfo:
        """The batch ``batch_id`` (a unique prefix of it is accepted); CheckpointError if unknown."""
        with self._read() as conn:
            batch_id = self._resolve(conn, batch_id)
            row = conn.execute(
                "SELECT batch_id, name, status, total, inputs_digest, created_at, updated_at, meta"
                " FROM batches WHERE batch_id = ?", (batch_id,),
            ).fetchone()
            counts = dict(conn.execute(_COUNTS, (batch_id,)).fetchall())
        return self._info(row, counts)

    def list_batches(self, name: str | None = None, limit: int | None = 100) -> list[BatchInfo]:
        """Batches, newest first (optionally only those of crew ``name``)."""
        sql = "SELECT batch_id, name, status, total, inputs_digest, created_at, updated_at, meta FROM batches"
        params: list[Any] = []
        if name is not None:
            sql += " WHERE name = ?"
            params.append(name)
        sql += " ORDER BY created_at DESC, rowid DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        with self._read() as conn:
            rows = conn.execute(sql, params).fetchall()
            return [self._info(r, dict(conn.execute(_COUNTS, (r[0],)).fetchall())) for r in rows]

    def latest_unfinished(self, name: str, digest: str) -> str | None:
        """The newest batch of ``name`` over the same inputs list that has not completed."""
        with self._read() as conn:
            row = conn.execute(
                "SELECT batch_id FROM batches WHERE name = ? AND inputs_digest = ? AND status != 'completed'"
                " ORDER BY created_at DESC, rowid DESC LIMIT 1", (name, digest),
            ).fetchone()
        return None if row is None else str(row[0])

    def finish_batch(self, batch_id: str) -> BatchInfo:
        """Set the batch's status from its items (completed when every item is) and return it."""
        with self._write() as conn:
            counts = dict(conn.execute(_COUNTS, (batch_id,)).fetchall())
            total = sum(counts.values())
            status = ("completed" if counts.get("completed", 0) == total
                      else "failed" if counts.get("failed", 0) else "running")
            conn.execute("UPDATE batches SET status = ?, updated_at = ? WHERE batch_id = ?",
                         (status, time.time(), batch_id))
        return self.get_batch(batch_id)

    def delete_batch(self, batch_id: str, *, runs: bool = True) -> None:
        """Delete a batch record and (with ``runs``) the checkpointed runs its inputs made."""
        with self._write() as conn:
            batch_id = self._resolve(conn, batch_id)
            if runs:
                conn.execute("DELETE FROM runs WHERE run_id IN"
                             " (SELECT run_id FROM batch_items WHERE batch_id = ? AND run_id IS NOT NULL)",
                             (batch_id,))
            conn.execute("DELETE FROM batches WHERE batch_id = ?", (batch_id,))

    # items ---------------------------------------------------------------
    def items(self, batch_id: str) -> list[BatchItemInfo]:
        """Every input of the batch, in input order (outputs not loaded)."""
        with self._read() as conn:
            batch_id = self._resolve(conn, batch_id)
            rows = conn.execute(
                "SELECT idx, fingerprint, status, run_id, error, attempts, output IS NOT NULL"
                " FROM batch_items WHERE batch_id = ? ORDER BY idx", (batch_id,),
            ).fetchall()
        return [
            BatchItemInfo(index=i, fingerprint=fp, status=st, run_id=rid, error=err, attempts=att,
                          has_output=bool(out))
            for i, fp, st, rid, err, att, out in rows
        ]

    def item_status(self, batch_id: str, index: int) -> str:
        """The status of one input now (another process may have finished it since a plan was made)."""
        with self._read() as conn:
            row = conn.execute("SELECT status FROM batch_items WHERE batch_id = ? AND idx = ?",
                               (batch_id, index)).fetchone()
        if row is None:
            raise CheckpointError(f"batch {batch_id!r} has no input #{index}")
        return str(row[0])

    def output(self, batch_id: str, index: int) -> Any:
        """The stored output of a completed item (None when it could not be pickled)."""
        with self._read() as conn:
            row = conn.execute("SELECT output FROM batch_items WHERE batch_id = ? AND idx = ?",
                               (batch_id, index)).fetchone()
        if row is None or row[0] is None:
            return None
        try:
            return _codec.load_output(row[0])
        except Exception:  # a class renamed since: the caller restores it from the run instead
            return None

    def begin_item(self, batch_id: str, index: int, name: str) -> tuple[str, bool]:
        """Mark an item ``running`` and make sure its checkpointed run exists.

        Returns ``(run_id, resumed)``: the item's earlier run when the store still has it
        (it then resumes from its finished nodes), else a new run created here, in the
        same transaction, so the item never points at a run that is not recorded.
        """
        now = time.time()
        with self._write() as conn:
            self._fenced(conn, item_key(batch_id, index))
            row = conn.execute("SELECT run_id FROM batch_items WHERE batch_id = ? AND idx = ?",
                               (batch_id, index)).fetchone()
            if row is None:
                raise CheckpointError(f"batch {batch_id!r} has no input #{index}")
            run_id = row[0]
            resumed = run_id is not None and conn.execute(
                "SELECT 1 FROM runs WHERE run_id = ?", (run_id,)).fetchone() is not None
            if not resumed:
                run_id = new_run_id()
                conn.execute(
                    "INSERT INTO runs (run_id, name, status, created_at, updated_at, meta)"
                    " VALUES (?, ?, 'running', ?, ?, ?)",
                    (run_id, name, now, now, _codec.dump_json({"batch_id": batch_id, "batch_index": index})),
                )
            conn.execute(
                "UPDATE batch_items SET status = 'running', run_id = ?, error = NULL,"
                " attempts = attempts + 1, updated_at = ? WHERE batch_id = ? AND idx = ?",
                (run_id, now, batch_id, index),
            )
        return str(run_id), resumed

    def complete_item(self, batch_id: str, index: int, output: Any, *, run: RunTransfer | None = None) -> None:
        """Record an item's output (its ``graph`` dropped); with ``run``, also write that run's rows
        (a run computed in another store, e.g. on a Ray worker) in the same transaction."""
        slim = output.model_copy(update={"graph": None}) if hasattr(output, "model_copy") else output
        blob, _reason = _codec.dump_output(slim)  # unpicklable: restored from the run on resume
        with self._write() as conn:
            self._fenced(conn, item_key(batch_id, index))
            if run is not None:
                _write_run(conn, run)
            conn.execute(
                "UPDATE batch_items SET status = 'completed', error = NULL, output = ?, updated_at = ?"
                " WHERE batch_id = ? AND idx = ?",
                (blob, time.time(), batch_id, index),
            )

    def fail_item(self, batch_id: str, index: int, error: str, *, run: RunTransfer | None = None) -> None:
        with self._write() as conn:
            self._fenced(conn, item_key(batch_id, index))
            if run is not None:
                _write_run(conn, run)
            conn.execute(
                "UPDATE batch_items SET status = 'failed', error = ?, updated_at = ? WHERE batch_id = ? AND idx = ?",
                (error, time.time(), batch_id, index),
            )

    # moving runs ----------------------------------------------------------
    def export_run(self, run_id: str) -> RunTransfer | None:
        """The run's record and the latest save of each of its nodes (None if there is no such run)."""
        with self._read() as conn:
            return _read_run(conn, run_id)

    def import_run(self, run: RunTransfer) -> None:
        """Write ``run`` into this store, replacing what it held for that run id."""
        with self._write() as conn:
            _write_run(conn, run)

    # helpers ------------------------------------------------------------

    def _resolve(self, conn: sqlite3.Connection, ref: str) -> str:
        """``ref`` itself, or the one batch id starting with it; else a CheckpointError listing recent ones."""
        ref = (ref or "").strip()
        if ref and conn.execute("SELECT 1 FROM batches WHERE batch_id = ?", (ref,)).fetchone():
            return ref
        escaped = ref.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        found = [r[0] for r in conn.execute(
            "SELECT batch_id FROM batches WHERE batch_id LIKE ? ESCAPE '\\' LIMIT 2", (escaped + "%",))] if ref else []
        if len(found) == 1:
            return str(found[0])
        if len(found) > 1:
            raise CheckpointError(f"batch id prefix {ref!r} matches several batches in {str(self.path)!r}; "
                                  "give more of the id")
        recent = [r[0] for r in conn.execute("SELECT batch_id FROM batches ORDER BY created_at DESC LIMIT 5")]
        hint = f" Most recent: {', '.join(recent)}." if recent else " It holds no batches."
        raise CheckpointError(f"no batch {ref!r} in checkpoint database {str(self.path)!r}.{hint}")

    @staticmethod
    def _info(row: tuple[Any, ...], counts: dict[str, int]) -> BatchInfo:
        batch_id, name, status, total, digest, created, updated, meta = row
        return BatchInfo(
            batch_id=batch_id, name=name, status=status, total=int(total), inputs_digest=digest,
            created_at=datetime.fromtimestamp(created, tz=UTC), updated_at=datetime.fromtimestamp(updated, tz=UTC),
            counts={k: int(v) for k, v in counts.items()}, meta=_codec.load_json(meta),
        )


_LATEST_ROWS = """
    SELECT o.node_id, o.output, o.restorable, o.info FROM node_outputs AS o
    WHERE o.run_id = ? AND o.seq = (SELECT MAX(i.seq) FROM node_outputs AS i
                                    WHERE i.run_id = o.run_id AND i.node_id = o.node_id)
    ORDER BY o.seq
"""


def _read_run(conn: sqlite3.Connection, run_id: str) -> RunTransfer | None:
    row = conn.execute("SELECT name, status, meta, error FROM runs WHERE run_id = ?", (run_id,)).fetchone()
    if row is None:
        return None
    rows = [(str(n), o, int(r), str(i)) for n, o, r, i in conn.execute(_LATEST_ROWS, (run_id,)).fetchall()]
    entries = [(str(k), int(i), str(t)) for k, i, t in conn.execute(
        "SELECT list_key, idx, text FROM context_entries WHERE run_id = ?", (run_id,)).fetchall()]
    return RunTransfer(run_id=run_id, name=row[0], status=row[1], meta=_codec.load_json(row[2]), error=row[3],
                       rows=rows, entries=entries)


def _write_run(conn: sqlite3.Connection, run: RunTransfer) -> None:
    now = time.time()
    exists = conn.execute("SELECT meta FROM runs WHERE run_id = ?", (run.run_id,)).fetchone()
    if exists is None:
        conn.execute(
            "INSERT INTO runs (run_id, name, status, created_at, updated_at, meta, error) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (run.run_id, run.name, run.status, now, now, _codec.dump_json(run.meta), run.error),
        )
    else:
        merged = {**_codec.load_json(exists[0]), **run.meta}
        conn.execute("UPDATE runs SET status = ?, meta = ?, error = ?, updated_at = ? WHERE run_id = ?",
                     (run.status, _codec.dump_json(merged), run.error, now, run.run_id))
        conn.execute("DELETE FROM node_outputs WHERE run_id = ?", (run.run_id,))
        conn.execute("DELETE FROM context_entries WHERE run_id = ?", (run.run_id,))
    conn.executemany(
        "INSERT INTO node_outputs (run_id, node_id, seq, output, restorable, info, saved_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(run.run_id, node, seq, blob, restorable, info, now)
         for seq, (node, blob, restorable, info) in enumerate(run.rows, start=1)],
    )
    conn.executemany("INSERT INTO context_entries (run_id, list_key, idx, text) VALUES (?, ?, ?, ?)",
                     [(run.run_id, key, idx, text) for key, idx, text in run.entries])

