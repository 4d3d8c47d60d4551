"""``SQLiteCheckpointStore``: the durable record of runs, on stdlib ``sqlite3``.

What a checkpoint guarantees
----------------------------
The scheduler calls :meth:`~SQLiteCheckpointStore.save_node` when a node has
*finished*; the save is one transaction, committed before the call returns
(see :mod:`crewgraph.checkpoint._sqlite` for the WAL + ``synchronous=FULL``
choice). So if the process is killed at any instant, a resumed run sees
every node whose save returned, and nothing half-written.

A node interrupted mid-execution re-executes from its start on resume: its
output was never saved. That is deliberate, not a gap: a node's step talks
to the outside world (an LLM call, a tool that writes a file or sends a
request) and those effects are not part of our transaction, so there is no
point inside a node we could safely resume from. Design tools that may run
twice accordingly (idempotent writes), as with any retry.

Unpicklable outputs
-------------------
If a node's output cannot be pickled, the save still succeeds and the run
goes on: a *marker* row is written (no output, ``info["checkpoint_skipped"]``
holding the pickling error) and a :class:`CheckpointWarning` is issued naming
the node. :meth:`~SQLiteCheckpointStore.completed` leaves marked nodes out,
so a resumed run re-executes them, the only way to get their value back.
Failing the whole run because a value cannot be *saved* would punish the
user for a feature meant to protect them. Pass ``on_unpicklable="raise"``
to get a :class:`~crewgraph.errors.CheckpointError` naming the node instead.
A saved output that can no longer be unpickled (its class was renamed or
removed) is treated the same way on load: warned about and re-executed.

The text of earlier outputs that default-context prompts share is stored once per run,
not in each node's pickle (:mod:`crewgraph.checkpoint._shared_context`).
"""

from __future__ import annotations

import sqlite3
import threading
import time
import warnings
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from crewgraph.checkpoint import _codec
from crewgraph.checkpoint._events import (
    PROVIDER,
    emit_checkpoint,
    listening,
    save_with_events,
    writes_crewai_records,
)
from crewgraph.checkpoint._shared_context import SharedContext, SharedDump
from crewgraph.checkpoint._sqlite import (
    LATEST,
    LATEST_INFO,
    RUN_COLUMNS,
    SQLiteTransactions,
    connect,
)
from crewgraph.checkpoint.info import CheckpointInfo, NodeCheckpoint
from crewgraph.errors import CheckpointError
from crewgraph.events.checkpoint_events import (
    CheckpointCompletedEvent,
    CheckpointFailedEvent,
    CheckpointForkCompletedEvent,
    CheckpointForkFailedEvent,
    CheckpointForkStartedEvent,
    CheckpointPrunedEvent,
    CheckpointStartedEvent,
)
from crewgraph.ids import new_run_id

__all__ = ["CheckpointWarning", "SQLiteCheckpointStore"]

_SKIPPED_KEY = "checkpoint_skipped"
_RECENT_IN_ERRORS = 5

class CheckpointWarning(UserWarning):
    """A node's output could not be checkpointed or restored; that node will re-run."""


def _ts(value: float) -> datetime:
    return datetime.fromtimestamp(value, tz=UTC)


class SQLiteCheckpointStore(SQLiteTransactions):
    """Runs and their finished nodes' outputs in one SQLite file.

    Implements the :class:`~crewgraph.checkpoint.base.Checkpointer` protocol
    plus listing, forking and deleting. Safe to share between threads (one
    connection guarded by a lock: SQLite serialises writers anyway, and a
    node save is far shorter than the node that produced it) and between
    processes (SQLite file locking, 30 s busy timeout).

    ``keep_last`` prunes older runs of the same name when a new run starts.
    ``on_unpicklable`` is ``"skip"`` (marker + warning, the node re-runs on
    resume) or ``"raise"`` (:class:`CheckpointError` naming the node).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        keep_last: int | None = None,
        on_unpicklable: Literal["skip", "raise"] = "skip",
    ) -> None:
        if keep_last is not None and keep_last < 1:
            raise ValueError("keep_last must be >= 1 or None")
        if on_unpicklable not in ("skip", "raise"):
            raise ValueError("on_unpicklable must be 'skip' or 'raise'")
        self.path = Path(path).expanduser()
        self.keep_last = keep_last
        self.on_unpicklable = on_unpicklable
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = connect(self.path)
        self._shared = SharedContext()

    # lifecycle ----------------------------------------------------------
    def close(self) -> None:
        """Close the connection (idempotent). Saves already returned are on disk."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> SQLiteCheckpointStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SQLiteCheckpointStore({str(self.path)!r})"

    # the Checkpointer protocol -------------------------------------------
    def start_run(self, run_id: str, *, name: str, meta: dict[str, Any] | None = None) -> None:
        """Record that ``run_id`` is running. A new id creates the run (and prunes
        per ``keep_last``); a known id is a resume: status back to ``running``, the
        error cleared, ``meta`` merged into the stored meta, saved nodes kept."""
        now = time.time()
        with self._write() as conn:
            self._fenced(conn, run_id)
            row = conn.execute("SELECT meta FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            if row is None:
                conn.execute(
                    "INSERT INTO runs (run_id, name, status, created_at, updated_at, meta)"
                    " VALUES (?, ?, 'running', ?, ?, ?)",
                    (run_id, name, now, now, _codec.dump_json(meta or {})),
                )
                if self.keep_last is not None:
                    removed = self._prune(conn, name, self.keep_last)
                    if removed:
                        emit_checkpoint(self, CheckpointPrunedEvent, run_id, location=str(self.path),
                                        provider=PROVIDER, trigger="run_started", removed_count=removed,
                                        max_checkpoints=self.keep_last)
            else:
                merged = {**_codec.load_json(row[0]), **(meta or {})}
                conn.execute(
                    "UPDATE runs SET status = 'running', error = NULL, updated_at = ?, meta = ?"
                    " WHERE run_id = ?",
                    (now, _codec.dump_json(merged), run_id),
                )

    def save_node(
        self, run_id: str, node_id: str, *, output: Any, info: dict[str, Any] | None = None
    ) -> None:
        """Durably record that ``node_id`` finished with ``output``.

        One transaction, committed (and fsynced) before returning: once this
        returns, a resume after any crash restores this output. Saving a node
        again (a flow loop) adds a newer entry; the latest one wins.
        """
        if (listening(CheckpointStartedEvent, CheckpointCompletedEvent, CheckpointFailedEvent)
                and not writes_crewai_records(run_id)):
            save_with_events(self, run_id, node_id, output, info)
            return
        self._save(run_id, node_id, output, info)

    def _save(self, run_id: str, node_id: str, output: Any, info: dict[str, Any] | None) -> int:
        with self._lock:  # the run's entry lists stay as this pickle saw them until its commit
            dump, reason = self._shared.dump_output(run_id, output)
            info = dict(info or {})
            if reason is not None:
                if self.on_unpicklable == "raise":
                    raise CheckpointError(
                        f"cannot checkpoint the output of node {node_id!r} (run {run_id!r}): "
                        f"it cannot be pickled ({reason})"
                    )
                warnings.warn(
                    f"output of node {node_id!r} cannot be pickled ({reason}); it is not "
                    "checkpointed and the node will re-run if this run is resumed",
                    CheckpointWarning,
                    stacklevel=2,
                )
                info[_SKIPPED_KEY] = reason
            return self._insert(run_id, node_id, None if dump is None else dump.blob, info, dump)

    def save_failure(self, run_id: str, node_id: str, *, info: dict[str, Any]) -> None:
        """Record that ``node_id`` failed: its run record (status, error, attempts) and the calls
        it made, with no output. Readers (the executed graph, ``crewgraph ui``) show the node
        failed; :meth:`completed` leaves it out, so a resume runs it again."""
        self._insert(run_id, node_id, None, dict(info))

    def _insert(self, run_id: str, node_id: str, blob: bytes | None, info: dict[str, Any], dump: SharedDump | None = None) -> int:
        now = time.time()
        with self._write() as conn:
            self._fenced(conn, run_id)
            self._require_run(conn, run_id)
            if dump is not None:
                self._shared.insert(conn, dump)
            (seq,) = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM node_outputs WHERE run_id = ?", (run_id,)
            ).fetchone()
            conn.execute(
                "INSERT INTO node_outputs (run_id, node_id, seq, output, restorable, info, saved_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (run_id, node_id, seq, blob, int(blob is not None), _codec.dump_json(info), now),
            )
            conn.execute("UPDATE runs SET updated_at = ? WHERE run_id = ?", (now, run_id))
        if dump is not None:
            self._shared.committed(run_id, dump)
        return int(seq)

    def completed(self, run_id: str) -> dict[str, Any]:
        """``{node_id: output}`` for every node a resume must not recompute (the
        latest save of each node, in save order). Marker rows and outputs that no
        longer unpickle are left out, so those nodes re-run."""
        with self._read() as conn:
            self._require_run(conn, run_id)
            rows = conn.execute(LATEST, (run_id,)).fetchall()
            lists = self._shared.entries(conn, run_id)
        result: dict[str, Any] = {}
        for node_id, _seq, blob, restorable, _info, _saved in rows:
            if not restorable or blob is None:
                continue
            try:
                result[node_id] = self._shared.loads(blob, lists)
            except Exception as exc:
                warnings.warn(
                    f"checkpointed output of node {node_id!r} (run {run_id!r}) cannot be "
                    f"unpickled ({type(exc).__name__}: {exc}); the node will re-run",
                    CheckpointWarning,
                    stacklevel=2,
                )
        return result

    def finish_run(self, run_id: str, *, status: str, error: str | None = None) -> None:
        """Record the run's final ``status`` (completed, failed, cancelled) and error."""
        with self._write() as conn:
            self._fenced(conn, run_id)
            self._require_run(conn, run_id)
            conn.execute(
                "UPDATE runs SET status = ?, error = ?, updated_at = ? WHERE run_id = ?",
                (status, error, time.time(), run_id),
            )
            self._shared.forget(run_id)

    # reading ------------------------------------------------------------
    def list_runs(self, name: str | None = None, limit: int | None = 100) -> list[CheckpointInfo]:
        """Runs, newest first, optionally only those named ``name``."""
        sql = f"SELECT {RUN_COLUMNS} FROM runs AS r"
        params: list[Any] = []
        if name is not None:
            sql += " WHERE r.name = ?"
            params.append(name)
        sql += " ORDER BY r.created_at DESC, r.rowid DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        with self._read() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [self._info(row) for row in rows]

    def get_run(self, run_id: str) -> CheckpointInfo:
        """The run ``run_id``; :class:`CheckpointError` if the store has no such run."""
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {RUN_COLUMNS} FROM runs AS r WHERE r.run_id = ?", (run_id,)
            ).fetchone()
            if row is None:
                raise self._unknown_run(conn, run_id)
        return self._info(row)

    def resolve_run_id(self, ref: str) -> str:
        """The run id ``ref`` names: itself, or the one run whose id starts with it.

        Run ids are long; pictures and listings show their first 8 characters, so a unique
        prefix is accepted wherever a run id is. Ambiguous or unknown: :class:`CheckpointError`.
        """
        ref = ref.strip()
        with self._read() as conn:
            if conn.execute("SELECT 1 FROM runs WHERE run_id = ?", (ref,)).fetchone() is not None:
                return ref
            escaped = ref.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            matches = [
                r[0]
                for r in conn.execute(
                    "SELECT run_id FROM runs WHERE run_id LIKE ? ESCAPE '\\' "
                    "ORDER BY created_at DESC, rowid DESC LIMIT 6",
                    (escaped + "%",),
                )
            ] if ref else []
            if len(matches) == 1:
                return matches[0]
            if not matches:
                raise self._unknown_run(conn, ref)
        shown = ", ".join(matches[:5]) + (", ..." if len(matches) > 5 else "")
        raise CheckpointError(
            f"run id prefix {ref!r} matches several runs in {str(self.path)!r} ({shown}); "
            "give more of the id"
        )

    def has_run(self, run_id: str) -> bool:
        with self._read() as conn:
            return (
                conn.execute("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)).fetchone()
                is not None
            )

    def latest_run(
        self, name: str | None = None, status: str | None = None
    ) -> CheckpointInfo | None:
        """The most recently created run (optionally of ``name``/with ``status``), or None.

        ``latest_run(name, status="running")`` finds a run that was killed mid-way.
        """
        clauses, params = [], []
        if name is not None:
            clauses.append("r.name = ?")
            params.append(name)
        if status is not None:
            clauses.append("r.status = ?")
            params.append(status)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        sql = f"SELECT {RUN_COLUMNS} FROM runs AS r{where} ORDER BY r.created_at DESC, r.rowid DESC LIMIT 1"
        with self._read() as conn:
            row = conn.execute(sql, params).fetchone()
        return None if row is None else self._info(row)

    def load_meta(self, run_id: str) -> dict[str, Any]:
        """The ``meta`` dict given to ``start_run`` (merged over resumes)."""
        with self._read() as conn:
            row = conn.execute("SELECT meta FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            if row is None:
                raise self._unknown_run(conn, run_id)
        return _codec.load_json(row[0])

    def update_meta(self, run_id: str, meta: dict[str, Any]) -> None:
        """Merge ``meta`` into the run's stored meta (one committed transaction)."""
        with self._write() as conn:
            self._fenced(conn, run_id)
            row = conn.execute("SELECT meta FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            if row is None:
                raise self._unknown_run(conn, run_id)
            merged = {**_codec.load_json(row[0]), **meta}
            conn.execute(
                "UPDATE runs SET meta = ?, updated_at = ? WHERE run_id = ?",
                (_codec.dump_json(merged), time.time(), run_id),
            )

    def nodes(self, run_id: str, *, latest_only: bool = True, calls: bool = False) -> list[NodeCheckpoint]:
        """What was saved for ``run_id`` (without the outputs), in save order.
        ``latest_only=False`` includes every save of nodes that ran more than once.
        ``calls=True`` keeps each node's model and tool calls (``info["calls"]``, with their
        prompts and results: see ``crewgraph.graph.call_records``); listings leave them out."""
        sql = (
            LATEST_INFO
            if latest_only
            else (
                "SELECT o.node_id, o.seq, NULL, o.restorable, o.info, o.saved_at FROM node_outputs AS o"
                " WHERE o.run_id = ? ORDER BY o.seq"
            )
        )
        if not calls:  # cut in SQLite: a runs listing never decodes the prompts
            sql = sql.replace("o.restorable, o.info,", "o.restorable, json_remove(o.info, '$.calls'),", 1)
        with self._read() as conn:
            self._require_run(conn, run_id)
            rows = conn.execute(sql, (run_id,)).fetchall()
        return [
            NodeCheckpoint(
                node_id=node_id,
                seq=seq,
                saved_at=_ts(saved),
                restorable=bool(restorable),
                info=_codec.load_json(info),
            )
            for node_id, seq, _blob, restorable, info, saved in rows
        ]

    # branching and deleting ----------------------------------------------
    def fork(self, run_id: str, branch: str | None = None, *, exclude: Iterable[str] = ()) -> str:
        """Copy ``run_id``'s completed node outputs under a new run id and return it.

        The new run has status ``forked``, ``parent_run_id=run_id`` and ``branch``;
        resuming it restores the copied nodes and runs the rest, leaving the
        parent untouched. ``exclude`` drops node ids from the copy so they re-run
        in the fork (pass a node and its descendants to re-run from that node).
        """
        if not listening(CheckpointForkStartedEvent, CheckpointForkCompletedEvent, CheckpointForkFailedEvent):
            return self._fork(run_id, branch, exclude)
        label = {"branch": branch or "", "parent_checkpoint_id": run_id}
        emit_checkpoint(self, CheckpointForkStartedEvent, run_id, **label)
        started = time.perf_counter()
        try:
            new_id = self._fork(run_id, branch, exclude)
        except Exception as exc:
            emit_checkpoint(self, CheckpointForkFailedEvent, run_id, **label, error=str(exc))
            raise
        emit_checkpoint(self, CheckpointForkCompletedEvent, run_id, **label, checkpoint_id=new_id,
                        duration_ms=(time.perf_counter() - started) * 1000)
        return new_id

    def _fork(self, run_id: str, branch: str | None, exclude: Iterable[str]) -> str:
        skip = set(exclude)
        new_id = new_run_id()
        now = time.time()
        with self._write() as conn:
            row = conn.execute("SELECT name, meta FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            if row is None:
                raise self._unknown_run(conn, run_id)
            conn.execute(
                "INSERT INTO runs (run_id, name, status, created_at, updated_at,"
                " parent_run_id, branch, meta) VALUES (?, ?, 'forked', ?, ?, ?, ?, ?)",
                (new_id, row[0], now, now, run_id, branch, row[1]),
            )
            rows = [
                r for r in conn.execute(LATEST, (run_id,)).fetchall() if r[3] and r[0] not in skip
            ]
            conn.executemany(
                "INSERT INTO node_outputs (run_id, node_id, seq, output, restorable, info, saved_at)"
                " VALUES (?, ?, ?, ?, 1, ?, ?)",
                [
                    (new_id, node_id, seq, blob, info, saved)
                    for seq, (node_id, _old, blob, _r, info, saved) in enumerate(rows, start=1)
                ],
            )
            self._shared.copy_entries(conn, run_id, new_id)
        return new_id

    def delete_run(self, run_id: str) -> None:
        """Delete ``run_id`` and its saved outputs; :class:`CheckpointError` if unknown.
        Forks of it keep their own copies (only their ``parent_run_id`` dangles)."""
        with self._write() as conn:
            if conn.execute("DELETE FROM runs WHERE run_id = ?", (run_id,)).rowcount == 0:
                raise self._unknown_run(conn, run_id)
            self._shared.forget(run_id)

    def delete_all(self) -> int:
        """Delete every run; returns how many there were."""
        with self._write() as conn:
            self._shared.clear()
            return int(conn.execute("DELETE FROM runs").rowcount)

    # helpers ------------------------------------------------------------

    def _require_run(self, conn: sqlite3.Connection, run_id: str) -> None:
        if conn.execute("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)).fetchone() is None:
            raise self._unknown_run(conn, run_id)

    def _unknown_run(self, conn: sqlite3.Connection, run_id: str) -> CheckpointError:
        recent = [
            r[0]
            for r in conn.execute(
                "SELECT run_id FROM runs ORDER BY created_at DESC, rowid DESC LIMIT ?",
                (_RECENT_IN_ERRORS,),
            )
        ]
        hint = f" Most recent: {', '.join(recent)}." if recent else " The store is empty."
        return CheckpointError(
            f"no run {run_id!r} in checkpoint database {str(self.path)!r}.{hint} "
            "See all run ids with `crewgraph checkpoints list` or "
            "crewgraph.checkpoint.list_checkpoints(path)."
        )

    @staticmethod
    def _prune(conn: sqlite3.Connection, name: str, keep_last: int) -> int:
        return conn.execute(
            "DELETE FROM runs WHERE run_id IN (SELECT run_id FROM runs WHERE name = ?"
            " ORDER BY created_at DESC, rowid DESC LIMIT -1 OFFSET ?)",
            (name, keep_last),
        ).rowcount

    @staticmethod
    def _info(row: tuple[Any, ...]) -> CheckpointInfo:
        run_id, name, status, created, updated, parent, branch, meta, error, count = row
        return CheckpointInfo(
            run_id=run_id,
            name=name,
            status=status,
            created_at=_ts(created),
            updated_at=_ts(updated),
            nodes_completed=int(count),
            parent_run_id=parent,
            branch=branch,
            error=error,
            meta=_codec.load_json(meta),
        )
