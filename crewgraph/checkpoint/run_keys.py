"""Run keys: the caller's name for a run, so re-issuing a kickoff never runs it twice.

``kickoff(..., run_key="nightly-2026-12-01")`` binds the key to one run id (or batch id) the
first time, in a ``run_keys`` table of the store's own file; every later kickoff with the key
gets the same id back: the unfinished run resumes (under its lease), the finished one returns
its recorded output with every node restored. It is what a workflow id is in Temporal, and
exactly what a restart loop needs: the window between "the run finished" and "the script
noted it" no longer re-runs anything.

The binding is one ``INSERT OR IGNORE`` then ``SELECT`` in a ``BEGIN IMMEDIATE`` transaction
(on PostgreSQL ``INSERT ... ON CONFLICT DO NOTHING``, ``path`` being the store's URL),
so of two processes claiming a new key at once both get the same id; the run's lease then
lets only one of them run it. The key also records a fingerprint of the inputs: the same key
with other inputs is refused, since returning the old output would answer another question.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from crewgraph.errors import CheckpointError

__all__ = ["claim_run_key"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS run_keys (
    scope       TEXT NOT NULL,
    run_key     TEXT NOT NULL,
    target_id   TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    created_at  REAL NOT NULL,
    PRIMARY KEY (scope, run_key)
)
"""


def claim_run_key(path: Path | str, scope: str, run_key: str, new_id: str, fingerprint: str) -> str:
    """The id ``run_key`` names in ``scope`` (e.g. ``crew:NAME``), binding it to ``new_id`` when
    the key is new. A key bound with another inputs ``fingerprint`` is a CheckpointError."""
    if not isinstance(run_key, str) or not run_key.strip():
        raise CheckpointError(f"run_key must be a non-empty string, not {run_key!r}")
    if str(path) == ":memory:":
        raise CheckpointError("run_key needs a checkpoint file (an in-memory store forgets the key)")
    from crewgraph.checkpoint.location import is_store_url

    if is_store_url(path):
        from crewgraph.checkpoint._postgres_stores import claim_run_key_pg

        target, stored = claim_run_key_pg(str(path), scope, run_key, new_id, fingerprint)
        return _checked(scope, run_key, target, stored, fingerprint)
    try:
        conn = sqlite3.connect(str(path), timeout=30.0, isolation_level=None)
    except sqlite3.Error as exc:
        raise _problem(path, exc) from exc
    try:
        conn.execute(_SCHEMA)
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT OR IGNORE INTO run_keys (scope, run_key, target_id, fingerprint, created_at)"
                     " VALUES (?, ?, ?, ?, ?)", (scope, run_key, new_id, fingerprint, time.time()))
        target, stored = conn.execute("SELECT target_id, fingerprint FROM run_keys WHERE scope = ? AND run_key = ?",
                                      (scope, run_key)).fetchone()
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise _problem(path, exc) from exc
    finally:
        conn.close()
    return _checked(scope, run_key, str(target), str(stored), fingerprint)


def _checked(scope: str, run_key: str, target: str, stored: str, fingerprint: str) -> str:
    if stored != fingerprint:
        kind = scope.split(":", 1)[0]
        raise CheckpointError(
            f"run_key {run_key!r} already names the {kind} run {target!r} of {scope.split(':', 1)[-1]!r}, which ran with "
            "other inputs; re-issue it with the inputs it was first given, or use a new run_key")
    return str(target)


def _problem(path: Path | str, exc: BaseException) -> CheckpointError:
    from crewgraph._internal.store_errors import store_problem

    return CheckpointError(store_problem("run keys of", path, exc))
