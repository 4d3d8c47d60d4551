"""PostgreSQL for the stores: connecting, the schema, transactions and errors told apart.

Why PostgreSQL at all: SQLite's file locks serialise the writers of one machine, and nothing
more (they do not hold across network file systems). Drivers on several machines, a Ray
cluster's driver and a ``crewgraph ui`` elsewhere share runs through one database server.

What this module gives the stores (:mod:`crewgraph.checkpoint._postgres_stores`,
:mod:`crewgraph.checkpoint._postgres_leases`, :mod:`crewgraph.flow._postgres_persistence`):

- :func:`connect`: one psycopg 3 connection (autocommit: every transaction is an explicit
  ``BEGIN ... COMMIT``), its ``search_path`` set to the store's schema (``crewgraph``, or the
  URL's ``?schema=NAME``), the schema and every store table created idempotently the first
  time this process opens that schema, and only when the schema has no version row yet (under
  advisory locks: two processes running ``CREATE TABLE IF NOT EXISTS`` at once can still collide
  in PostgreSQL's catalog, and DDL beside a running save can deadlock with it).
- :class:`PGConnection`: the SQLite stores' SQL runs unchanged (``?`` placeholders and the
  few SQLite-only phrases are rewritten once per statement), so the stores' logic is shared,
  not copied.
- :class:`PGTransactions`: the stores' ``_read``/``_write`` on PostgreSQL. A write takes a
  transaction-level advisory lock per schema first: writers are serialised exactly as SQLite's
  ``BEGIN IMMEDIATE`` serialises them (a node save is milliseconds; the node it follows took
  seconds), so every read-then-write in the stores is as atomic as on SQLite. A read is one
  ``REPEATABLE READ READ ONLY`` snapshot. A connection the server dropped is replaced at the
  next transaction.
- :func:`fence_in_transaction`: a leased run's writes check, in their own transaction, that
  the lease row (read ``FOR SHARE``) is still this holder's (fencing, see
  :mod:`crewgraph.checkpoint.lease`).
- :func:`pg_problem`: a full disk, an I/O error, damaged data, a refused login and an
  unreachable server each get their own message (the host named, the password never).

psycopg is imported only here, on first use; without it the error names the extra to install.
"""

from __future__ import annotations

import re
import threading
import zlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, ClassVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from crewgraph.checkpoint._shared_context import ENTRIES_TABLE
from crewgraph.checkpoint.location import display
from crewgraph.errors import CheckpointError

__all__ = ["DEFAULT_SCHEMA", "PGConnection", "PGTransactions", "connect", "pg_problem", "psycopg_module", "split_url"]

DEFAULT_SCHEMA = "crewgraph"
SCHEMA_VERSION = 2
"""1: the tables below but context_entries. 2: context_entries (see
:mod:`crewgraph.checkpoint._shared_context`), added when a version-1 schema is opened."""
_LOCK_CLASS = 0x63726577  # "crew": the advisory-lock namespace of crewgraph
_CONNECT_TIMEOUT_S = 10
_SCHEMA_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")

_TABLES = """
CREATE TABLE IF NOT EXISTS crewgraph_schema (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    rowid         BIGSERIAL,
    run_id        TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    status        TEXT NOT NULL,
    created_at    DOUBLE PRECISION NOT NULL,
    updated_at    DOUBLE PRECISION NOT NULL,
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
    output     BYTEA,
    restorable INTEGER NOT NULL,
    info       TEXT NOT NULL DEFAULT '{}',
    saved_at   DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE INDEX IF NOT EXISTS node_outputs_by_node ON node_outputs (run_id, node_id, seq);
CREATE TABLE IF NOT EXISTS batches (
    rowid         BIGSERIAL,
    batch_id      TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    status        TEXT NOT NULL,
    total         INTEGER NOT NULL,
    inputs_digest TEXT NOT NULL,
    created_at    DOUBLE PRECISION NOT NULL,
    updated_at    DOUBLE PRECISION NOT NULL,
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
    output      BYTEA,
    attempts    INTEGER NOT NULL DEFAULT 0,
    updated_at  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (batch_id, idx)
);
CREATE TABLE IF NOT EXISTS run_keys (
    scope       TEXT NOT NULL,
    run_key     TEXT NOT NULL,
    target_id   TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    created_at  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (scope, run_key)
);
CREATE TABLE IF NOT EXISTS leases (
    resource    TEXT PRIMARY KEY,
    token       TEXT NOT NULL,
    holder      TEXT NOT NULL,
    machine     TEXT NOT NULL,
    pid         INTEGER NOT NULL,
    started     TEXT NOT NULL,
    acquired_at DOUBLE PRECISION NOT NULL,
    expires_at  DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS flow_states (
    id          BIGSERIAL PRIMARY KEY,
    flow_uuid   TEXT NOT NULL,
    method_name TEXT NOT NULL,
    timestamp   TEXT NOT NULL,
    state_json  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_flow_states_uuid ON flow_states (flow_uuid);
CREATE TABLE IF NOT EXISTS flow_runs (
    rowid       BIGSERIAL,
    run_id      TEXT PRIMARY KEY,
    flow_uuid   TEXT NOT NULL,
    updated     TEXT NOT NULL,
    record_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_flow_runs_uuid ON flow_runs (flow_uuid);
CREATE TABLE IF NOT EXISTS flow_steps (
    id     BIGSERIAL PRIMARY KEY,
    run_id TEXT NOT NULL,
    seq    INTEGER NOT NULL,
    method TEXT NOT NULL,
    output BYTEA NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_flow_steps_run ON flow_steps (run_id);
CREATE TABLE IF NOT EXISTS flow_pending_feedback (
    flow_uuid    TEXT PRIMARY KEY,
    timestamp    TEXT NOT NULL,
    context_json TEXT NOT NULL,
    state_json   TEXT NOT NULL,
    output       BYTEA
);
""" + ENTRIES_TABLE

_ready: set[tuple[str, str]] = set()  # (url without schema, schema) prepared by this process
_ready_lock = threading.Lock()


def psycopg_module() -> Any:
    """psycopg 3, imported on first use; missing, a CheckpointError naming the extra."""
    try:
        import psycopg
    except ImportError as exc:
        raise CheckpointError(
            "a postgresql:// store needs psycopg 3, which is not installed: "
            "pip install 'crewgraph[postgres]'") from exc
    return psycopg


def split_url(url: str) -> tuple[str, str]:
    """``(conninfo URL for libpq, schema)``: the ``schema`` query parameter is crewgraph's."""
    parts = urlsplit(url.strip())
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = DEFAULT_SCHEMA
    kept = []
    for key, value in query:
        if key == "schema":
            schema = value
        else:
            kept.append((key, value))
    if not _SCHEMA_NAME.match(schema):
        raise CheckpointError(f"store URL {display(url)!r}: schema {schema!r} must be a plain SQL name "
                              "(letters, digits, _; at most 63)")
    return urlunsplit(parts._replace(query=urlencode(kept))), schema


def lock_key(schema: str, purpose: str) -> tuple[int, int]:
    """The advisory-lock key (two int4) of ``purpose`` ("write", "setup") in ``schema``."""
    value = zlib.crc32(f"{schema}:{purpose}".encode())
    return _LOCK_CLASS, value - 2**32 if value >= 2**31 else value


def connect(url: str, noun: str) -> Any:
    """A psycopg connection to the store at ``url`` (autocommit; search_path its schema), the
    schema and tables created if this process has not prepared them yet."""
    psycopg = psycopg_module()
    conninfo, schema = split_url(url)
    options: dict[str, Any] = {"autocommit": True, "application_name": "crewgraph"}
    if "connect_timeout" not in conninfo:
        options["connect_timeout"] = _CONNECT_TIMEOUT_S
    try:
        conn = psycopg.connect(conninfo, **options)
    except psycopg.Error as exc:
        raise CheckpointError(pg_problem(noun, url, exc)) from exc
    try:
        with _ready_lock:
            if (conninfo, schema) not in _ready:
                _prepare(conn, schema)
                _ready.add((conninfo, schema))
        conn.execute(f'SET search_path TO "{schema}"')
    except psycopg.Error as exc:
        conn.close()
        raise CheckpointError(pg_problem(noun, url, exc)) from exc
    except BaseException:
        conn.close()
        raise
    return conn


def _version(conn: Any, schema: str) -> int | None:
    """The schema's recorded version (None: not created yet, or created only in part)."""
    if conn.execute("SELECT to_regclass(%s)", (f'"{schema}".crewgraph_schema',)).fetchone()[0] is None:
        return None
    row = conn.execute(f'SELECT max(version) FROM "{schema}".crewgraph_schema').fetchone()
    return None if row is None or row[0] is None else int(row[0])


def _prepare(conn: Any, schema: str) -> None:
    """Create the schema and tables unless they exist. The DDL runs only for a new schema (or one
    of an older version, which gets the tables it lacks), under
    both the setup lock and the write lock: ``CREATE INDEX IF NOT EXISTS`` locks its table even
    when the index exists, so DDL beside a running save could deadlock with it."""
    version = _version(conn, schema)
    if version is None or version < SCHEMA_VERSION:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", lock_key(schema, "setup"))
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", lock_key(schema, "write"))
            version = _version(conn, schema)  # another process may have created it meanwhile
            if version is None or version < SCHEMA_VERSION:  # new, or older: every table IF NOT EXISTS
                conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
                conn.execute(f'SET LOCAL search_path TO "{schema}"')
                for statement in _TABLES.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute("INSERT INTO crewgraph_schema (version) VALUES (%s)", (SCHEMA_VERSION,))
                version = SCHEMA_VERSION
    if version > SCHEMA_VERSION:
        raise CheckpointError(f"store schema {schema!r} is at version {version}, newer than this crewgraph "
                              f"understands ({SCHEMA_VERSION}); upgrade crewgraph to use it")


# ---------------------------------------------------------------------- SQL
@lru_cache(maxsize=512)
def translate(sql: str, has_params: bool) -> str:
    """A statement of the SQLite stores in PostgreSQL's words (placeholders, ``json_remove``,
    ``LIMIT -1``); ``%`` doubled where psycopg substitutes parameters."""
    out = sql.replace("json_remove(o.info, '$.calls')", "(o.info::jsonb - 'calls')::text")
    out = out.replace("LIMIT -1 OFFSET", "LIMIT ALL OFFSET")
    if has_params:
        out = out.replace("%", "%%").replace("?", "%s")
    return out


class PGConnection:
    """A psycopg connection answering the stores' sqlite3-style calls (``execute`` returning a
    cursor with ``fetchone``/``fetchall``/``rowcount``, ``executemany``)."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        params = tuple(params)
        return self.raw.execute(translate(sql, bool(params)), params or None)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> Any:
        rows = [tuple(r) for r in rows]
        cursor = self.raw.cursor()
        if rows:
            cursor.executemany(translate(sql, True), rows)
        return cursor

    @property
    def broken(self) -> bool:
        return bool(self.raw.closed or getattr(self.raw, "broken", False))

    def close(self) -> None:
        self.raw.close()


class PGTransactions:
    """``_read``/``_write``/``_connection``/``lease_backend``/``close`` of a store on PostgreSQL.

    A store sets ``url``, ``path`` (the URL for messages, password hidden), ``_lock`` and
    ``_conn`` (``None`` once closed) and names itself in ``closed_noun``/``noun``."""

    closed_noun: ClassVar[str] = "checkpoint store"
    noun: ClassVar[str] = "checkpoint store"
    url: str
    path: Any
    _lock: threading.RLock
    _conn: Any
    _schema: str

    def _open(self, url: str) -> None:
        self.url = url
        self.path = display(url)
        self._schema = split_url(url)[1]
        self._lock = threading.RLock()
        self._conn = PGConnection(connect(url, self.noun))

    def close(self) -> None:
        """Close the store's connection (a closed store refuses further use, naming itself)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    @contextmanager
    def _read(self) -> Iterator[Any]:
        """One consistent snapshot under the store lock."""
        psycopg = psycopg_module()
        with self._lock:
            conn = self._connection()
            try:
                conn.raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                try:
                    yield conn
                except BaseException:
                    self._rollback(conn)
                    raise
                conn.raw.execute("COMMIT")
            except psycopg.Error as exc:
                self._rollback(conn)
                raise self._translate(exc) from exc

    @contextmanager
    def _write(self) -> Iterator[Any]:
        """One write transaction, writers of this schema serialised by an advisory lock
        (what ``BEGIN IMMEDIATE`` is on SQLite); rolled back on any error."""
        psycopg = psycopg_module()
        with self._lock:
            conn = self._connection()
            try:
                conn.raw.execute("BEGIN")
                conn.raw.execute("SELECT pg_advisory_xact_lock(%s, %s)", lock_key(self._schema, "write"))
                try:
                    yield conn
                except BaseException:
                    self._rollback(conn)
                    raise
                conn.raw.execute("COMMIT")
            except psycopg.Error as exc:
                self._rollback(conn)
                raise self._translate(exc) from exc

    @staticmethod
    def _rollback(conn: PGConnection) -> None:
        psycopg = psycopg_module()
        if conn.broken:
            return
        try:
            if conn.raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                conn.raw.execute("ROLLBACK")
        except psycopg.Error:
            pass  # the connection went away: it is replaced at the next transaction

    def _connection(self) -> PGConnection:
        if self._conn is None:
            raise CheckpointError(f"{self.closed_noun} {self.path!r} is closed")
        if self._conn.broken:  # the server restarted or dropped us: a new connection
            self._conn = PGConnection(connect(self.url, self.noun))
        conn: PGConnection = self._conn
        return conn

    def _translate(self, exc: BaseException) -> CheckpointError:
        return CheckpointError(pg_problem(self.noun, self.url, exc))

    def _fenced(self, conn: Any, key: str) -> None:
        """In a write transaction: refuse it (LeaseLostError) when ``key``'s lease was lost."""
        keeper = self.fence_for(key)  # type: ignore[attr-defined]  # Fences, a base of the SQLite stores
        if keeper is not None:
            fence_in_transaction(conn, keeper, self.url)

    def lease_backend(self) -> Any:
        """The lease compare-and-set in this database (its own connection)."""
        from crewgraph.checkpoint._postgres_leases import PostgresLeases

        return PostgresLeases(self.url)


def fence_in_transaction(conn: Any, keeper: Any, url: str) -> None:
    """Fence a write in ``conn``'s open transaction on the store at ``url``: when the lease lives
    in the same database and schema, its row is read ``FOR SHARE`` in this very transaction, so no
    process can take the lease over between the check and the commit (a taker's compare-and-set
    waits for it); else the lease backend checks it (:meth:`LeaseKeeper.verify`)."""
    from crewgraph.checkpoint._postgres_leases import PostgresLeases
    from crewgraph.checkpoint.lease import fence_check

    backend = keeper.backend
    if isinstance(backend, PostgresLeases) and split_url(backend.url) == split_url(url):
        row = conn.execute("SELECT token, holder FROM leases WHERE resource = ? FOR SHARE",
                           (keeper.resource,)).fetchone()
        fence_check(keeper, None if row is None else (str(row[0]), str(row[1])))
        return
    keeper.verify()


# ---------------------------------------------------------------------- errors
def _server(url: str) -> str:
    parts = urlsplit(url.strip())
    host = parts.hostname or "localhost (the default socket)"
    port = f":{parts.port}" if parts.port else ""
    database = parts.path.lstrip("/") or "(the user's default)"
    return f"the PostgreSQL server {host}{port}, database {database}"


def pg_problem(noun: str, url: str, exc: BaseException) -> str:
    """The message for ``exc`` on the store ``noun`` at ``url``: each kind of failure says
    whether the data is safe and what to do (the password is never shown)."""
    where = f"{noun} {display(url)!r}"
    state = str(getattr(exc, "sqlstate", None) or "")
    text = str(exc).strip()
    lowered = text.lower()
    if state == "53100":
        return (f"{where}: the database server's disk is full ({text}). The store is not damaged and nothing "
                "saved is lost (the failed write was rolled back): free space on the server, then run or resume again.")
    if state.startswith("53"):
        return (f"{where}: the server is out of a resource ({text}). Nothing saved is lost: retry later, or raise "
                "the server's limit (max_connections, memory).")
    if state.startswith("58"):
        return (f"{where}: the server reports an input/output error ({text}). The data may well be intact: check "
                "the server's disk and log, then retry. Do not drop the schema.")
    if state in ("XX001", "XX002"):
        return (f"{where}: the server reports damaged data ({text}). crewgraph cannot repair it: restore the database "
                "from a backup (a damaged index: REINDEX it), or give another schema (?schema=NAME) to start empty.")
    if state.startswith("28") or "password authentication failed" in lowered or "no password supplied" in lowered:
        return (f"{where}: {_server(url)} refused the login ({text}). Check the user and password in the URL "
                "(or PGPASSWORD / ~/.pgpass).")
    if state == "3D000" or ("database" in lowered and "does not exist" in lowered):
        return f"{where}: {_server(url)} has no such database ({text}); create it (createdb) or fix the URL."
    if state == "42501":
        return (f"{where}: this user may not use the store's schema ({text}); grant it USAGE and CREATE on the "
                "schema, or choose another (?schema=NAME).")
    if state.startswith("08") or state.startswith("57P") or (not state and _is_connection_error(exc)):
        return (f"{where}: cannot reach {_server(url)} ({text}). Check that the server runs and accepts "
                "connections from this machine; what was saved before is committed on the server.")
    return f"{where}: {text}"


def _is_connection_error(exc: BaseException) -> bool:
    try:
        psycopg = psycopg_module()
    except CheckpointError:
        return False
    return isinstance(exc, psycopg.OperationalError)
