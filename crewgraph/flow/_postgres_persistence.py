"""``PostgresFlowPersistence``: flow states and the run journal in a PostgreSQL schema.

What :class:`~crewgraph.flow.persistence.SQLiteFlowPersistence` keeps in a file (states, runs,
completed methods, pending feedback) in the same tables of the store's schema (beside the
checkpoint tables: one ``postgresql://`` URL holds everything), so flows run by processes on
several machines, and a ``crewgraph ui`` elsewhere, share their runs. Chosen by
``@persist("postgresql://...")``, ``PostgresFlowPersistence(url)``, or ``$CREWGRAPH_STORE_URL``
for flows given no store. The run leases are the checkpoint store's
(:mod:`crewgraph.checkpoint._postgres_leases`), in the same schema, and a leased run's journal
writes are fenced in their own transactions (the lease row read ``FOR SHARE``).

One connection per store object, opened on first use and shared by threads under a lock
(each operation is one short transaction); a connection the server dropped is replaced.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from crewgraph.flow.persistence import FlowPersistence, keeping_fence

if TYPE_CHECKING:
    from crewgraph.flow.async_feedback.types import PendingFeedbackContext

__all__ = ["PostgresFlowPersistence"]

_NOUN = "flow state store"


def _json(state_data: dict[str, Any] | BaseModel) -> str:
    data = state_data.model_dump(mode="json") if isinstance(state_data, BaseModel) else state_data
    return json.dumps(data, default=str)


class PostgresFlowPersistence(FlowPersistence):
    """Flow states and the run journal in the PostgreSQL store at ``url`` (see the module docstring)."""

    model_config = ConfigDict(populate_by_name=True)

    supports_runs: ClassVar[bool] = True

    persistence_type: str = "PostgresFlowPersistence"
    url: str = Field(repr=False)
    """The store's ``postgresql://`` URL (``?schema=NAME`` picks the schema, default ``crewgraph``)."""

    _lock: threading.RLock = PrivateAttr(default_factory=threading.RLock)
    _conn: Any = PrivateAttr(default=None)
    _fences: dict[str, Any] = PrivateAttr(default_factory=dict)

    def __init__(self, url: str | None = None, **data: Any) -> None:
        super().__init__(url=url if url is not None else data.pop("url", None), **data)

    @field_validator("url")
    @classmethod
    def _check(cls, value: str) -> str:
        from crewgraph.checkpoint.location import display, is_store_url

        if not is_store_url(value):
            raise ValueError(f"PostgresFlowPersistence needs a postgresql:// URL, not {display(value)!r}")
        return value.strip()

    @property
    def db_path(self) -> str:
        """The store's location, as ``SQLiteFlowPersistence.db_path`` is (run keys are claimed there)."""
        return self.url

    @property
    def where(self) -> str:
        from crewgraph.checkpoint.location import display

        return display(self.url)

    # connection -------------------------------------------------------------
    @contextmanager
    def _tx(self) -> Iterator[Any]:
        """One transaction on the store's connection (committed on success, rolled back on error)."""
        from crewgraph.checkpoint._postgres import PGConnection, connect, pg_problem, psycopg_module
        from crewgraph.errors import CheckpointError

        psycopg = psycopg_module()
        with self._lock:
            if self._conn is None or self._conn.broken:
                self._conn = PGConnection(connect(self.url, _NOUN))
            conn = self._conn
            try:
                with conn.raw.transaction():
                    yield conn
            except psycopg.Error as exc:
                raise CheckpointError(pg_problem(_NOUN, self.url, exc)) from exc

    def close(self) -> None:
        """Close the connection (idempotent; the next use opens a new one)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    @contextmanager
    def fence(self, key: str, keeper: Any) -> Iterator[None]:
        """Inside the block, writes for ``key`` (a run id or a state id) check in their own
        transaction that ``keeper``'s lease is still held (fencing, as SQLiteFlowPersistence does)."""
        with keeping_fence(self._fences, key, keeper):
            yield

    def _fenced(self, conn: Any, key: str) -> None:
        keeper = self._fences.get(key)
        if keeper is not None:
            from crewgraph.checkpoint._postgres import fence_in_transaction

            fence_in_transaction(conn, keeper, self.url)

    def lease_backend(self) -> Any:
        """The lease compare-and-set in this store's schema (its own connection)."""
        from crewgraph.checkpoint._postgres_leases import PostgresLeases

        return PostgresLeases(self.url)

    # FlowPersistence -------------------------------------------------------------
    def init_db(self) -> None:
        with self._tx():  # connecting creates the schema and tables (idempotent)
            pass

    def save_state(self, flow_uuid: str, method_name: str, state_data: dict[str, Any] | BaseModel) -> None:
        with self._tx() as conn:
            self._fenced(conn, flow_uuid)
            conn.execute("INSERT INTO flow_states (flow_uuid, method_name, timestamp, state_json) VALUES (?, ?, ?, ?)",
                         (flow_uuid, method_name, datetime.now(UTC).isoformat(), _json(state_data)))

    def load_state(self, flow_uuid: str) -> dict[str, Any] | None:
        with self._tx() as conn:
            row = conn.execute("SELECT state_json FROM flow_states WHERE flow_uuid = ? ORDER BY id DESC LIMIT 1",
                               (flow_uuid,)).fetchone()
        return dict(json.loads(row[0])) if row else None

    def save_pending_feedback(
        self, flow_uuid: str, context: PendingFeedbackContext, state_data: dict[str, Any] | BaseModel
    ) -> None:
        import pickle

        state_text = _json(state_data)
        try:
            blob: bytes | None = pickle.dumps(context.method_output, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            blob = None
        now = datetime.now(UTC).isoformat()
        with self._tx() as conn:
            self._fenced(conn, flow_uuid)
            conn.execute("INSERT INTO flow_states (flow_uuid, method_name, timestamp, state_json) VALUES (?, ?, ?, ?)",
                         (flow_uuid, context.method_name, now, state_text))
            conn.execute(
                "INSERT INTO flow_pending_feedback (flow_uuid, timestamp, context_json, state_json, output)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (flow_uuid) DO UPDATE SET timestamp = EXCLUDED.timestamp,"
                " context_json = EXCLUDED.context_json, state_json = EXCLUDED.state_json, output = EXCLUDED.output",
                (flow_uuid, now, json.dumps(context.to_dict(), default=str), state_text, blob))

    def load_pending_feedback(self, flow_uuid: str) -> tuple[dict[str, Any], PendingFeedbackContext] | None:
        import pickle

        from crewgraph.flow.async_feedback.types import PendingFeedbackContext

        with self._tx() as conn:
            row = conn.execute("SELECT context_json, state_json, output FROM flow_pending_feedback"
                               " WHERE flow_uuid = ?", (flow_uuid,)).fetchone()
        if row is None:
            return None
        context = PendingFeedbackContext.from_dict(json.loads(row[0]))
        if row[2] is not None:
            context.method_output = pickle.loads(bytes(row[2]))
        return dict(json.loads(row[1])), context

    def clear_pending_feedback(self, flow_uuid: str) -> None:
        with self._tx() as conn:
            conn.execute("DELETE FROM flow_pending_feedback WHERE flow_uuid = ?", (flow_uuid,))

    def save_run(self, run_id: str, flow_uuid: str, record: dict[str, Any]) -> None:
        text = json.dumps({**record, "run_id": run_id, "flow_uuid": flow_uuid}, default=str)
        with self._tx() as conn:  # a replaced record moves to the end, as SQLite's REPLACE does
            self._fenced(conn, run_id)
            conn.execute(
                "INSERT INTO flow_runs (run_id, flow_uuid, updated, record_json) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (run_id) DO UPDATE SET flow_uuid = EXCLUDED.flow_uuid, updated = EXCLUDED.updated,"
                " record_json = EXCLUDED.record_json, rowid = nextval(pg_get_serial_sequence('flow_runs', 'rowid'))",
                (run_id, flow_uuid, datetime.now(UTC).isoformat(), text))

    def load_run(self, run_id: str) -> dict[str, Any] | None:
        with self._tx() as conn:
            row = conn.execute("SELECT record_json FROM flow_runs WHERE run_id = ?", (run_id,)).fetchone()
        return dict(json.loads(row[0])) if row else None

    def latest_run(self, flow_uuid: str) -> dict[str, Any] | None:
        with self._tx() as conn:
            row = conn.execute("SELECT record_json FROM flow_runs WHERE flow_uuid = ?"
                               " ORDER BY updated DESC, rowid DESC LIMIT 1", (flow_uuid,)).fetchone()
        return dict(json.loads(row[0])) if row else None

    def save_step(
        self, run_id: str, seq: int, method: str, output: bytes, flow_uuid: str, state_data: Any
    ) -> None:
        with self._tx() as conn:  # one transaction: state and step together
            self._fenced(conn, run_id)
            conn.execute("INSERT INTO flow_states (flow_uuid, method_name, timestamp, state_json) VALUES (?, ?, ?, ?)",
                         (flow_uuid, method, datetime.now(UTC).isoformat(), _json(state_data)))
            conn.execute("INSERT INTO flow_steps (run_id, seq, method, output) VALUES (?, ?, ?, ?)",
                         (run_id, seq, method, output))

    def load_steps(self, run_id: str) -> list[tuple[str, bytes]]:
        with self._tx() as conn:
            rows = conn.execute("SELECT method, output FROM flow_steps WHERE run_id = ? ORDER BY seq, id",
                                (run_id,)).fetchall()
        return [(str(m), bytes(o)) for m, o in rows]

    def list_runs(self, limit: int = 50) -> list[dict[str, Any]]:
        """The latest run records, newest first, each with ``updated_at`` (ISO 8601, UTC)."""
        with self._tx() as conn:
            rows = conn.execute("SELECT record_json, updated FROM flow_runs ORDER BY updated DESC, rowid DESC"
                                " LIMIT ?", (limit,)).fetchall()
        return [{**json.loads(r[0]), "updated_at": r[1]} for r in rows]

    def __repr__(self) -> str:
        return f"PostgresFlowPersistence({self.where!r})"
