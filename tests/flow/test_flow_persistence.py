"""@persist: state saved to SQLite after methods, restored with kickoff(inputs={"id": ...})."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from crewgraph.flow import Flow, FlowState, listen, start
from crewgraph.flow.persistence import FlowPersistence, SQLiteFlowPersistence, persist


class Progress(FlowState):
    steps: list[str] = []
    counter: int = 0


def _rows(db: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as conn:
        return list(conn.execute("SELECT flow_uuid, method_name FROM flow_states ORDER BY id"))


def test_class_level_persist_saves_after_each_method_and_restores(
    storage_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    @persist  # default SQLite store under $CREWGRAPH_STORAGE_DIR
    class Steps(Flow[Progress]):
        @start()
        def one(self) -> None:
            self.state.counter += 1
            self.state.steps.append("one")

        @listen(one)
        def two(self) -> int:
            self.state.counter += 1
            self.state.steps.append("two")
            return self.state.counter

    flow = Steps()
    assert flow.kickoff() == 2
    saved_id = flow.state.id
    db = storage_dir / "flow_states.db"
    assert _rows(db) == [(saved_id, "one"), (saved_id, "two")]

    again = Steps()
    assert again.kickoff(inputs={"id": saved_id}) == 4  # resumed from the saved state
    assert isinstance(again.state, Progress)
    assert again.state.id == saved_id and again.state.steps == ["one", "two", "one", "two"]

    assert not caplog.records
    fresh = Steps()
    with caplog.at_level(logging.WARNING, logger="crewgraph.flow"):
        fresh.kickoff(inputs={"id": "never-saved"})
    assert fresh.state.counter == 2 and fresh.state.id == "never-saved"
    # An unknown id is not an error (as in CrewAI) but is said, naming the id and the file.
    [warning] = [r.getMessage() for r in caplog.records if r.name == "crewgraph.flow"]
    assert "no saved state with id 'never-saved'" in warning and str(db) in warning


def test_method_level_persist_with_explicit_store(tmp_path: Path) -> None:
    store = SQLiteFlowPersistence(tmp_path / "states.db")

    class Partial(Flow[dict]):
        @start()
        def a(self) -> None:
            self.state["a"] = True

        @persist(store)
        @listen(a)
        def b(self) -> None:
            self.state["b"] = True

    flow = Partial()
    flow.kickoff(inputs={"topic": "x"})
    rows = _rows(tmp_path / "states.db")
    assert rows == [(flow.state["id"], "b")]
    loaded = store.load_state(flow.state["id"])
    assert loaded == {"id": flow.state["id"], "topic": "x", "a": True, "b": True}


def test_inputs_apply_on_top_of_the_restored_state(tmp_path: Path) -> None:
    store = SQLiteFlowPersistence(str(tmp_path / "s.db"))

    @persist(store)
    class Greeter(Flow[dict]):
        @start()
        def greet(self) -> str:
            self.state["visits"] = self.state.get("visits", 0) + 1
            return f"hello {self.state['name']} #{self.state['visits']}"

    first = Greeter()
    assert first.kickoff(inputs={"name": "Ada"}) == "hello Ada #1"
    sid = first.state["id"]
    assert Greeter().kickoff(inputs={"id": sid, "name": "Grace"}) == "hello Grace #2"


def test_custom_persistence_backend() -> None:
    class Memory(FlowPersistence):
        def __init__(self) -> None:
            self.saved: dict[str, list[tuple[str, Any]]] = {}

        def init_db(self) -> None:
            pass

        def save_state(self, flow_uuid: str, method_name: str, state_data: dict[str, Any] | BaseModel) -> None:
            self.saved.setdefault(flow_uuid, []).append((method_name, state_data))

        def load_state(self, flow_uuid: str) -> dict[str, Any] | None:
            got = self.saved.get(flow_uuid)
            return dict(got[-1][1]) if got else None

    backend = Memory()

    @persist()
    class F(Flow[dict]):
        @start()
        def a(self) -> int:
            self.state["n"] = self.state.get("n", 0) + 1
            return int(self.state["n"])

    flow = F(persistence=backend)  # the instance's store serves @persist()
    flow.kickoff()
    assert [m for m, _ in backend.saved[flow.state["id"]]] == ["a"]
    assert F(persistence=backend).kickoff(inputs={"id": flow.state["id"]}) == 2


def test_decorating_touches_no_disk(storage_dir: Path) -> None:
    @persist
    class Lazy(Flow):
        @start()
        def a(self) -> None:
            return None

    assert not storage_dir.exists()
    Lazy().kickoff()
    assert (storage_dir / "flow_states.db").exists()
