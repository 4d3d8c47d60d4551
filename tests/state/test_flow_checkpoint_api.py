"""CrewAI's checkpoint API on flows: Flow(checkpoint=CheckpointConfig), from_checkpoint, fork,
kickoff(from_checkpoint=...), restore_from_state_id -- over the one flow journal."""

from __future__ import annotations

from pathlib import Path

import pytest

from crewgraph.flow import Flow, listen, start
from crewgraph.flow.persistence import SQLiteFlowPersistence, persist
from crewgraph.state import CheckpointConfig, SqliteProvider

CALLS: list[str] = []
FAIL = {"on": True}


class MyFlow(Flow):
    @start()
    def step_one(self):
        CALLS.append("one")
        self.state["data"] = "data"
        return "data"

    @listen(step_one)
    def step_two(self, data):
        CALLS.append("two")
        if FAIL["on"]:
            raise RuntimeError("down")
        return f"processed {data}"


def _failed_run(location: Path) -> str:
    CALLS.clear()
    FAIL["on"] = True
    flow = MyFlow(checkpoint=CheckpointConfig(location=str(location), on_events=["method_execution_finished"]))
    with pytest.raises(RuntimeError, match="down"):
        flow.kickoff()
    assert CALLS == ["one", "two"] and flow.run_id is not None
    FAIL["on"] = False
    CALLS.clear()
    return flow.run_id


def test_from_checkpoint_continues_without_rerunning_completed_methods(tmp_path: Path) -> None:
    location = tmp_path / "flow_cp"
    run_id = _failed_run(location)
    store = SQLiteFlowPersistence(location / "checkpoints.db")
    assert store.load_run(run_id)["status"] == "failed"  # the journal `crewgraph flows list` reads

    flow = MyFlow.from_checkpoint(CheckpointConfig(location=str(location), restore_from=f"{location}/{run_id}"))
    assert flow.kickoff() == "processed data"
    assert CALLS == ["two"]
    assert store.load_run(run_id)["status"] == "completed"


def test_kickoff_from_checkpoint_a_location_means_the_latest_run(tmp_path: Path) -> None:
    db = tmp_path / "flows.db"
    CALLS.clear()
    FAIL["on"] = True
    with pytest.raises(RuntimeError):
        MyFlow(checkpoint=CheckpointConfig(location=str(db), provider=SqliteProvider())).kickoff()
    FAIL["on"] = False
    CALLS.clear()
    config = CheckpointConfig(location=str(db), provider=SqliteProvider(), restore_from=str(db))
    assert MyFlow().kickoff(from_checkpoint=config) == "processed data"
    assert CALLS == ["two"]


def test_fork_leaves_the_original_run(tmp_path: Path) -> None:
    location = tmp_path / "cp"
    run_id = _failed_run(location)
    forked = MyFlow.fork(CheckpointConfig(location=str(location), restore_from=run_id), branch="experiment-a")
    assert forked.kickoff() == "processed data" and CALLS == ["two"]
    store = SQLiteFlowPersistence(location / "checkpoints.db")
    record = store.load_run(forked.run_id)
    assert forked.run_id != run_id and record["parent_run_id"] == run_id and record["branch"] == "experiment-a"
    assert store.load_run(run_id)["status"] == "failed"


def test_restore_from_state_id_and_refusals(tmp_path: Path) -> None:
    store = SQLiteFlowPersistence(tmp_path / "states.db")

    @persist(store)
    class Counter(Flow[dict]):
        @start()
        def bump(self):
            self.state["n"] = self.state.get("n", 0) + 1
            return self.state["n"]

    first = Counter()
    assert first.kickoff() == 1
    assert Counter().kickoff(restore_from_state_id=first.flow_id) == 2
    with pytest.raises(ValueError, match="restore_from_state_id='x' needs a persisted flow"):
        MyFlow().kickoff(restore_from_state_id="x")
    with pytest.raises(ValueError, match=r"input_files=\.\.\.\) is not supported"):
        MyFlow().kickoff(input_files={"doc": "a.pdf"})
    with pytest.raises(ValueError, match="no flow run 'nope'"):
        MyFlow.from_checkpoint(CheckpointConfig(location=str(tmp_path / "cp2"), restore_from="nope"))
