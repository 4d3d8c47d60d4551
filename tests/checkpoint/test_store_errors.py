"""A full disk, an I/O error and a damaged file are told apart in every store's errors: advice to
delete a store that is only out of space would destroy good data."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from crewgraph._internal.store_errors import store_problem
from crewgraph.checkpoint import SQLiteCheckpointStore
from crewgraph.errors import CheckpointError


def _error(name: str, message: str) -> sqlite3.Error:
    exc = sqlite3.OperationalError(message)
    exc.sqlite_errorname = name  # type: ignore[attr-defined]
    return exc


@pytest.mark.parametrize(
    ("exc", "says", "never"),
    [
        (_error("SQLITE_FULL", "database or disk is full"), "the disk is full", "delete"),
        (OSError(28, "No space left on device"), "the disk is full", "delete"),
        (_error("SQLITE_IOERR_WRITE", "disk I/O error"), "input/output error", "Move it aside"),
        (_error("SQLITE_READONLY", "attempt to write a readonly database"), "cannot be opened or written", "corrupt"),
        (sqlite3.DatabaseError("file is not a database"), "unreadable or corrupt", "disk is full"),
    ],
)
def test_each_kind_of_failure_says_what_it_is(exc: BaseException, says: str, never: str) -> None:
    message = store_problem("checkpoint database", "/data/cp.db", exc)
    assert says in message and never not in message
    assert "'/data/cp.db'" in message


def test_a_damaged_checkpoint_file_is_called_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "cp.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(CheckpointError, match="unreadable or corrupt"):
        SQLiteCheckpointStore(path).list_runs()


def test_a_full_disk_during_a_save_is_not_called_corrupt(tmp_path: Path) -> None:
    """A real SQLite SQLITE_FULL: the store's page limit is reached mid-write (as a full disk
    does), the error says the disk is full and the store still reads afterwards."""
    path = tmp_path / "cp.db"
    store = SQLiteCheckpointStore(path)
    store.start_run("r1", name="t")
    conn = store._conn
    assert conn is not None
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count={pages + 1}")
    with pytest.raises(CheckpointError) as caught:
        for i in range(50):
            store.save_node("r1", f"n{i}", output="x" * 100_000, info={})
    assert "the disk is full" in str(caught.value) and "corrupt" not in str(caught.value)
    conn.execute("PRAGMA max_page_count=1073741823")
    assert [r.run_id for r in store.list_runs()] == ["r1"]
