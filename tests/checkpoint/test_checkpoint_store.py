"""The checkpoint store on real SQLite files and a real PostgreSQL: the protocol, listing, fork,
delete, errors. Tests taking ``store``/``store_location`` run on both (tests/checkpoint/conftest.py);
the file-specific ones (WAL, a corrupt file, a directory in the way) on SQLite only."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from crewgraph.checkpoint import (
    Checkpointer,
    CheckpointError,
    CheckpointWarning,
    SQLiteCheckpointStore,
    delete_checkpoint,
    list_checkpoints,
)
from crewgraph.checkpoint.location import open_checkpoint_store
from crewgraph.outputs import TaskOutput, UsageMetrics


@pytest.fixture
def store(store_location: Path | str) -> Iterator[SQLiteCheckpointStore]:
    s = open_checkpoint_store(store_location)
    yield s
    s.close()


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[SQLiteCheckpointStore]:
    s = SQLiteCheckpointStore(tmp_path / "cp" / "checkpoints.db")
    yield s
    s.close()


def test_implements_protocol(store: SQLiteCheckpointStore) -> None:
    assert isinstance(store, Checkpointer)


def test_save_and_restore_real_outputs(store: SQLiteCheckpointStore, store_location: Path | str) -> None:
    out = TaskOutput(
        description="research", raw="findings", token_usage=UsageMetrics(total_tokens=7)
    )
    store.start_run("r1", name="crew", meta={"inputs": {"topic": "AI"}})
    store.save_node("r1", "research", output=out, info={"duration_ms": 12.5})
    store.save_node("r1", "write", output={"text": "article"}, info={})
    store.close()

    with open_checkpoint_store(store_location) as reopened:
        done = reopened.completed("r1")
        assert list(done) == ["research", "write"]
        assert isinstance(done["research"], TaskOutput)
        assert done["research"].raw == "findings"
        assert done["research"].token_usage.total_tokens == 7
        assert reopened.load_meta("r1") == {"inputs": {"topic": "AI"}}
        [first, second] = reopened.nodes("r1")
        assert first.node_id == "research" and first.info == {"duration_ms": 12.5}
        assert first.restorable and second.seq == 2


def test_wal_and_full_sync(sqlite_store: SQLiteCheckpointStore) -> None:
    store = sqlite_store
    conn = sqlite3.connect(store.path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()
    assert store._conn is not None
    assert store._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_latest_save_of_a_node_wins(store: SQLiteCheckpointStore) -> None:
    store.start_run("r", name="flow", meta={})
    store.save_node("r", "loop", output=1, info={})
    store.save_node("r", "other", output="x", info={})
    store.save_node("r", "loop", output=2, info={})
    assert store.completed("r") == {"other": "x", "loop": 2}
    assert [n.seq for n in store.nodes("r", latest_only=False)] == [1, 2, 3]
    assert store.get_run("r").nodes_completed == 2


def test_run_lifecycle_and_resume(store: SQLiteCheckpointStore) -> None:
    store.start_run("r", name="crew", meta={"a": 1})
    store.save_node("r", "n1", output="one", info={})
    store.finish_run("r", status="failed", error="boom in n2")
    info = store.get_run("r")
    assert (info.status, info.error, info.nodes_completed) == ("failed", "boom in n2", 1)

    # Resume: same run id; status back to running, error cleared, outputs kept, meta merged.
    store.start_run("r", name="crew", meta={"b": 2})
    info = store.get_run("r")
    assert (info.status, info.error) == ("running", None)
    assert store.completed("r") == {"n1": "one"}
    assert store.load_meta("r") == {"a": 1, "b": 2}
    store.save_node("r", "n2", output="two", info={})
    store.finish_run("r", status="completed")
    assert store.get_run("r").status == "completed"
    assert store.get_run("r").updated_at >= store.get_run("r").created_at


def test_list_and_latest(store: SQLiteCheckpointStore) -> None:
    for i, name in enumerate(["a", "b", "a"]):
        store.start_run(f"r{i}", name=name, meta={})
    store.finish_run("r0", status="completed")
    assert [r.run_id for r in store.list_runs()] == ["r2", "r1", "r0"]
    assert [r.run_id for r in store.list_runs(name="a")] == ["r2", "r0"]
    assert [r.run_id for r in store.list_runs(limit=1)] == ["r2"]
    latest = store.latest_run()
    assert latest is not None and latest.run_id == "r2"
    done = store.latest_run(name="a", status="completed")
    assert done is not None and done.run_id == "r0"
    assert store.latest_run(name="nope") is None


def test_update_meta(store: SQLiteCheckpointStore) -> None:
    store.start_run("r", name="c", meta={"a": 1, "obj": object()})
    assert store.load_meta("r")["obj"].startswith("<object object")
    store.update_meta("r", {"final": "n3"})
    assert store.load_meta("r")["final"] == "n3"


def test_fork_lineage(store: SQLiteCheckpointStore) -> None:
    store.start_run("parent", name="crew", meta={"inputs": {"x": 1}})
    for node in ("a", "b", "c"):
        store.save_node("parent", node, output=node.upper(), info={"node": node})
    store.finish_run("parent", status="completed")

    child = store.fork("parent", branch="what-if", exclude=["c"])
    info = store.get_run(child)
    assert child != "parent"
    assert (info.parent_run_id, info.branch, info.status) == ("parent", "what-if", "forked")
    assert info.name == "crew" and info.meta == {"inputs": {"x": 1}}
    assert store.completed(child) == {"a": "A", "b": "B"}

    # The fork is independent of its parent.
    store.start_run(child, name="crew", meta={})
    store.save_node(child, "c", output="C2", info={})
    assert store.completed("parent")["c"] == "C"
    assert store.completed(child)["c"] == "C2"

    grandchild = store.fork(child)
    assert store.get_run(grandchild).parent_run_id == child
    assert store.get_run(grandchild).branch is None
    store.delete_run("parent")
    assert store.completed(child) == {"a": "A", "b": "B", "c": "C2"}


def test_delete(store: SQLiteCheckpointStore) -> None:
    for rid in ("r1", "r2", "r3"):
        store.start_run(rid, name="crew", meta={})
        store.save_node(rid, "n", output=rid, info={})
    store.delete_run("r2")
    assert [r.run_id for r in store.list_runs()] == ["r3", "r1"]
    with pytest.raises(CheckpointError, match="r2"):
        store.completed("r2")
    with pytest.raises(CheckpointError):
        store.delete_run("r2")
    # cascading: no orphan outputs
    assert store._conn is not None
    assert store._conn.execute("SELECT COUNT(*) FROM node_outputs").fetchone()[0] == 2
    assert store.delete_all() == 2
    assert store.list_runs() == []
    assert store._conn.execute("SELECT COUNT(*) FROM node_outputs").fetchone()[0] == 0


def test_keep_last_prunes_old_runs_of_the_same_name(store_location: Path | str) -> None:
    with open_checkpoint_store(store_location, keep_last=2) as store:
        for i in range(4):
            store.start_run(f"a{i}", name="a", meta={})
            store.save_node(f"a{i}", "n", output=i, info={})
        store.start_run("b0", name="b", meta={})
        assert [r.run_id for r in store.list_runs(name="a")] == ["a3", "a2"]
        assert [r.run_id for r in store.list_runs(name="b")] == ["b0"]
        store.start_run("a3", name="a", meta={})  # resuming never prunes
        assert len(store.list_runs(name="a")) == 2


def test_unknown_run_error_lists_how_to_find_ids(store: SQLiteCheckpointStore) -> None:
    with pytest.raises(CheckpointError, match="store is empty"):
        store.completed("missing")
    store.start_run("known-run", name="crew", meta={})
    for call in (
        lambda: store.completed("missing"),
        lambda: store.get_run("missing"),
        lambda: store.load_meta("missing"),
        lambda: store.fork("missing"),
        lambda: store.finish_run("missing", status="completed"),
        lambda: store.save_node("missing", "n", output=1, info={}),
    ):
        with pytest.raises(CheckpointError) as err:
            call()
        msg = str(err.value)
        assert "'missing'" in msg and "known-run" in msg
        assert "crewgraph checkpoints list" in msg and "list_checkpoints" in msg
        assert str(store.path) in msg


class _Unpicklable:
    def __init__(self) -> None:
        self.lock = threading.Lock()


def test_unpicklable_output_is_a_marker_and_reruns(store: SQLiteCheckpointStore) -> None:
    store.start_run("r", name="crew", meta={})
    store.save_node("r", "ok", output="fine", info={})
    with pytest.warns(CheckpointWarning, match="'holds_lock'"):
        store.save_node("r", "holds_lock", output=_Unpicklable(), info={"k": 1})
    assert store.completed("r") == {"ok": "fine"}
    marker = next(n for n in store.nodes("r") if n.node_id == "holds_lock")
    assert not marker.restorable
    assert "pickle" in marker.info["checkpoint_skipped"] and marker.info["k"] == 1
    assert store.get_run("r").nodes_completed == 1
    # Markers are not copied into forks: the fork re-runs that node too.
    fork = store.fork("r", branch="b")
    assert [n.node_id for n in store.nodes(fork)] == ["ok"]
    # A later successful save of the same node makes it restorable again.
    store.save_node("r", "holds_lock", output="now fine", info={})
    assert store.completed("r")["holds_lock"] == "now fine"


def test_unpicklable_output_can_raise(store_location: Path | str) -> None:
    probe = open_checkpoint_store(store_location)
    store_class = type(probe)  # SQLite's, or PostgreSQL's subclass of it
    probe.close()
    with store_class(store_location, on_unpicklable="raise") as store:
        store.start_run("r", name="crew", meta={})
        with pytest.raises(CheckpointError, match=r"'bad_node'.*pickled"):
            store.save_node("r", "bad_node", output=lambda: 1, info={})
        assert store.completed("r") == {}


def test_output_that_no_longer_unpickles_reruns(store: SQLiteCheckpointStore) -> None:
    store.start_run("r", name="crew", meta={})
    store.save_node("r", "n", output="x", info={})
    assert store._conn is not None
    store._conn.execute("UPDATE node_outputs SET output = ?", (b"\x80\x05not a pickle",))
    with pytest.warns(CheckpointWarning, match="'n'.*unpickled"):
        assert store.completed("r") == {}


def test_corrupt_file_names_the_path(tmp_path: Path) -> None:
    bad = tmp_path / "broken.db"
    bad.write_bytes(b"this is not a database, just some bytes " * 200)
    with pytest.raises(CheckpointError) as err:
        SQLiteCheckpointStore(bad)
    assert str(bad) in str(err.value) and "corrupt" in str(err.value)
    with pytest.raises(CheckpointError, match=r"broken\.db"):
        list_checkpoints(bad)


def test_directory_in_the_way(tmp_path: Path) -> None:
    (tmp_path / "adir.db").mkdir()
    with pytest.raises(CheckpointError, match=r"adir\.db") as err:
        SQLiteCheckpointStore(tmp_path / "adir.db")
    assert "is a directory" in str(err.value) and "corrupt" not in str(err.value)


def test_closed_store(store_location: Path | str) -> None:
    store = open_checkpoint_store(store_location)
    store.close()
    store.close()
    with pytest.raises(CheckpointError, match="closed"):
        store.list_runs()


def test_module_functions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "c.db"
    assert list_checkpoints(db) == []
    assert not db.exists(), "listing must not create a database"
    with pytest.raises(CheckpointError, match="no checkpoint database"):
        delete_checkpoint("r", db)
    with SQLiteCheckpointStore(db) as store:
        store.start_run("r1", name="crew", meta={})
        store.save_node("r1", "n", output=1, info={})
        store.start_run("r2", name="other", meta={})
    [r2, r1] = list_checkpoints(db)
    assert (r1.run_id, r1.nodes_completed, r2.run_id) == ("r1", 1, "r2")
    assert [r.run_id for r in list_checkpoints(db, name="crew")] == ["r1"]
    delete_checkpoint("r1", db)
    assert [r.run_id for r in list_checkpoints(db)] == ["r2"]
    with pytest.raises(CheckpointError, match="r1"):
        delete_checkpoint("r1", db)

    # path=None uses $CREWGRAPH_STORAGE_DIR
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(tmp_path))
    db.rename(tmp_path / "checkpoints.db")
    assert [r.run_id for r in list_checkpoints()] == ["r2"]
    delete_checkpoint("r2")
    assert list_checkpoints() == []
