"""Fencing in one process: a write fenced by a lease another holder has taken is refused.

The real-process race (SIGSTOP a holder past its lease, another takes over, SIGCONT) is in
test_lease_races.py; here each store's fenced writes are checked directly, with a holder whose
lease is left unrenewed (a stalled process) and then taken by a second one. Tests taking
``store_location`` run on SQLite and on PostgreSQL (there the lease row is read ``FOR SHARE`` in
the write's transaction).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from crewgraph._internal.shared_prompt import ContextRef, compact_message
from crewgraph.checkpoint import SQLiteCheckpointStore
from crewgraph.checkpoint.batch_store import BatchStore, item_key
from crewgraph.checkpoint.lease import LeaseKeeper, LeaseLostError, acquire_lease, me
from crewgraph.checkpoint.location import open_batch_store, open_checkpoint_store
from crewgraph.checkpoint.setup import ResolvedCheckpoint, fenced_run
from crewgraph.flow.persistence import flow_persistence


def _stalled(backend: Any, resource: str, ttl: float = 0.15) -> LeaseKeeper:
    """A lease taken, then never renewed (its process stalled); once expired, taken by another."""
    holder = me()
    assert backend.try_acquire(resource, holder, ttl) is None
    return LeaseKeeper(backend, resource, holder, ttl, owns_backend=False)


def _take_over(backend: Any, resource: str, ttl: float = 0.15) -> LeaseKeeper:
    time.sleep(ttl + 0.05)
    return acquire_lease(backend, resource, ttl=30.0)


def test_a_checkpoint_write_after_a_takeover_is_refused_and_names_the_new_holder(
        store_location: Path | str) -> None:
    store = open_checkpoint_store(store_location)
    store.start_run("r1", name="crew")
    backend = store.lease_backend()
    late = _stalled(backend, "run:r1")
    parts = ["first output", "second output"]  # a default-context prompt's shared entries
    with store.fence("r1", late):
        store.save_node("r1", "a", output=compact_message("", ContextRef(parts, 1, "\n"), ""))  # still its lease
        taker = _take_over(backend, "run:r1")
        with pytest.raises(LeaseLostError, match="lost its lease on run:r1") as caught:
            store.save_node("r1", "b", output=compact_message("", ContextRef(parts, 2, "\n"), ""))
        assert caught.value.holder == taker.holder.name
        with pytest.raises(LeaseLostError):
            store.finish_run("r1", status="completed")
    assert late.lost
    assert [n.node_id for n in store.nodes("r1")] == ["a"]  # nothing of the late holder's after the loss
    with store._read() as conn:  # not its shared context entries either
        assert conn.execute("SELECT text FROM context_entries WHERE run_id = 'r1'").fetchall() == [("first output",)]
    assert store.get_run("r1").status == "running"
    store.save_node("r1", "b", output="taker's")  # unfenced here: the taker's own writes go through
    taker.release()
    backend.close()
    store.close()


def test_a_stalled_holder_nobody_took_over_keeps_writing(store_location: Path | str) -> None:
    store = open_checkpoint_store(store_location)
    store.start_run("r1", name="crew")
    backend = store.lease_backend()
    late = _stalled(backend, "run:r1", ttl=0.05)
    time.sleep(0.1)  # expired, but its token is still on the lease
    with store.fence("r1", late):
        store.save_node("r1", "a", output="mine")
    assert not late.lost and [n.node_id for n in store.nodes("r1")] == ["a"]
    backend.close()
    store.close()


def test_batch_input_writes_are_fenced_by_the_input_lease(store_location: Path | str) -> None:
    store: BatchStore = open_batch_store(store_location)
    batch_id = store.create_batch("tagger", ["f0", "f1"])
    backend = store.lease_backend()
    late = _stalled(backend, item_key(batch_id, 0))
    with store.fence(item_key(batch_id, 0), late):
        store.begin_item(batch_id, 0, "tagger")
        taker = _take_over(backend, item_key(batch_id, 0))
        with pytest.raises(LeaseLostError):
            store.complete_item(batch_id, 0, "late output")
        with pytest.raises(LeaseLostError):
            store.fail_item(batch_id, 0, "late failure")
        store.begin_item(batch_id, 1, "tagger")  # another input: not fenced by this lease
    assert store.item_status(batch_id, 0) == "running"
    taker.release()
    backend.close()
    store.close()


def test_a_store_without_fences_checks_the_lease_through_its_backend(tmp_path: Path) -> None:
    real = SQLiteCheckpointStore(tmp_path / "cp.db")
    backend = real.lease_backend()

    class Plain:  # another store kind: only the Checkpointer methods
        def __init__(self) -> None:
            self.saved: list[str] = []

        def save_node(self, run_id: str, node_id: str, *, output: Any, info: Any = None) -> None:
            self.saved.append(node_id)

    plain = Plain()
    late = _stalled(backend, "run:r9")
    checkpoint = ResolvedCheckpoint(store=plain, run_id="r9", lease=late)  # type: ignore[arg-type]
    with fenced_run(checkpoint, "r9"):
        checkpoint.store.save_node("r9", "a", output=1)  # type: ignore[union-attr]
        taker = _take_over(backend, "run:r9")
        with pytest.raises(LeaseLostError):
            checkpoint.store.save_node("r9", "b", output=2)  # type: ignore[union-attr]
    assert checkpoint.store is plain and plain.saved == ["a"]
    taker.release()
    backend.close()
    real.close()


def test_flow_journal_writes_are_fenced(store_location: Path | str) -> None:
    store: Any = flow_persistence(store_location)
    backend = store.lease_backend()
    late = _stalled(backend, "flow:run-1")
    with store.fence("run-1", late), store.fence("state-1", late):
        store.save_run("run-1", "state-1", {"status": "running"})
        taker = _take_over(backend, "flow:run-1")
        with pytest.raises(LeaseLostError):
            store.save_step("run-1", 0, "draft", b"late", "state-1", {"x": 1})
        with pytest.raises(LeaseLostError):
            store.save_state("state-1", "draft", {"x": 2})
        with pytest.raises(LeaseLostError):
            store.save_run("run-1", "state-1", {"status": "completed"})
    assert store.load_run("run-1")["status"] == "running"  # type: ignore[index]
    assert store.load_steps("run-1") == [] and store.load_state("state-1") is None
    taker.release()
    backend.close()
