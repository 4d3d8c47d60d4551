"""BatchStore: batch records beside the runs, item states, prefixes, moving runs between stores
(on SQLite and PostgreSQL where a test takes ``store_location``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from crewgraph.checkpoint import SQLiteCheckpointStore
from crewgraph.checkpoint.batch_store import BatchStore, input_fingerprint, inputs_digest
from crewgraph.checkpoint.location import open_batch_store, open_checkpoint_store
from crewgraph.errors import CheckpointError
from crewgraph.outputs import CrewOutput


def test_fingerprints_are_stable_and_order_sensitive() -> None:
    assert input_fingerprint({"a": 1, "b": "x"}) == input_fingerprint({"b": "x", "a": 1})
    assert input_fingerprint({"a": 1}) != input_fingerprint({"a": "1"})
    assert input_fingerprint(None) == input_fingerprint({})
    a, b = input_fingerprint({"x": 1}), input_fingerprint({"x": 2})
    assert inputs_digest([a, b]) != inputs_digest([b, a])


def test_items_move_through_their_states_in_the_checkpoint_file(store_location: Path | str) -> None:
    db = store_location
    with open_batch_store(db) as store:
        fps = [input_fingerprint({"i": i}) for i in range(3)]
        batch_id = store.create_batch("crew", fps)
        info = store.get_batch(batch_id[:8])  # a unique prefix is accepted
        assert (info.total, info.status, info.counts) == (3, "running", {"pending": 3})
        run_id, resumed = store.begin_item(batch_id, 0, "crew")
        assert not resumed
        store.complete_item(batch_id, 0, CrewOutput(raw="zero", run_id=run_id, graph=object()))
        again, resumed = store.begin_item(batch_id, 1, "crew")
        store.fail_item(batch_id, 1, "RuntimeError: boom")
        items = store.items(batch_id)
        assert [i.status for i in items] == ["completed", "failed", "pending"]
        assert items[1].error == "RuntimeError: boom" and items[1].attempts == 1
        out = store.output(batch_id, 0)
        assert out.raw == "zero" and out.graph is None  # the run graph is not kept in the record
        assert store.output(batch_id, 2) is None
        assert store.finish_batch(batch_id).status == "failed"
        # a retried item resumes its earlier run, which the run tables hold
        rerun, resumed = store.begin_item(batch_id, 1, "crew")
        assert (rerun, resumed) == (again, True)
        assert store.items(batch_id)[1].attempts == 2
    with open_checkpoint_store(db) as runs:  # the item runs are ordinary checkpointed runs
        assert runs.get_run(run_id).meta == {"batch_id": batch_id, "batch_index": 0}


def test_batches_list_newest_first_and_find_the_unfinished_one(store_location: Path | str) -> None:
    with open_batch_store(store_location) as store:
        fps = [input_fingerprint({"i": 1})]
        old = store.create_batch("crew", fps)
        new = store.create_batch("crew", fps)
        store.create_batch("other", fps)
        assert [b.batch_id for b in store.list_batches(name="crew")] == [new, old]
        assert store.latest_unfinished("crew", inputs_digest(fps)) == new
        store.begin_item(new, 0, "crew")
        store.complete_item(new, 0, CrewOutput(raw="x"))
        assert store.finish_batch(new).status == "completed"
        assert store.latest_unfinished("crew", inputs_digest(fps)) == old
        assert store.latest_unfinished("crew", inputs_digest([*fps, *fps])) is None
        with pytest.raises(CheckpointError, match=r"no batch 'zzz'.*Most recent"):
            store.get_batch("zzz")
        store.delete_batch(new)
        assert [b.batch_id for b in store.list_batches(name="crew")] == [old]


def test_a_run_moves_between_stores_with_its_node_outputs(tmp_path: Path, store_location: Path | str) -> None:
    worker, driver = tmp_path / "worker.db", store_location  # a Ray worker's scratch file, the driver's store
    with SQLiteCheckpointStore(worker) as runs:
        runs.start_run("r1", name="crew", meta={"resume": {"nodes": ["a"]}})
        runs.save_node("r1", "a", output={"v": 1}, info={})
        runs.save_node("r1", "a", output={"v": 2}, info={})  # the latest save wins
        runs.finish_run("r1", status="completed")
    with BatchStore(worker) as store:
        moved = store.export_run("r1")
        assert store.export_run("nope") is None
    assert moved is not None and [r[0] for r in moved.rows] == ["a"]
    with open_batch_store(driver) as store:
        store.import_run(moved)
        store.import_run(moved)  # importing again replaces, never duplicates
    with open_checkpoint_store(driver) as runs:
        assert runs.completed("r1") == {"a": {"v": 2}}
        info = runs.get_run("r1")
        assert info.status == "completed" and info.meta["resume"] == {"nodes": ["a"]}
