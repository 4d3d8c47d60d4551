"""Flows persisted on a real PostgreSQL (``@persist("postgresql://...")``, ``$CREWGRAPH_STORE_URL``):
the store's API as SQLite's has it, run keys, the run lease, and a paused run answered through it."""

from __future__ import annotations

import os
from typing import Any

import pytest

from crewgraph.checkpoint.lease import RunLeasedError, acquire_lease
from crewgraph.errors import CheckpointError
from crewgraph.flow import Flow, listen, persist, start
from crewgraph.flow.persistence import FlowPersistence, SQLiteFlowPersistence, flow_persistence


def test_the_store_keeps_states_runs_steps_and_lists_newest_first(postgres_store_url: str) -> None:
    from crewgraph.flow._postgres_persistence import PostgresFlowPersistence

    store = flow_persistence(postgres_store_url)
    assert isinstance(store, PostgresFlowPersistence) and store.supports_runs
    try:
        assert store.load_state("u1") is None and store.load_run("r1") is None
        store.save_state("u1", "a", {"n": 1})
        store.save_step("r1", 1, "a", b"\x00blob", "u1", {"n": 2})
        assert store.load_state("u1") == {"n": 2} and store.load_steps("r1") == [("a", b"\x00blob")]
        store.save_run("r1", "u1", {"status": "running"})
        store.save_run("r2", "u2", {"status": "paused"})
        store.save_run("r1", "u1", {"status": "completed"})  # replaced: now the newest
        assert [r["run_id"] for r in store.list_runs()] == ["r1", "r2"]
        assert store.load_run("r1") == {"status": "completed", "run_id": "r1", "flow_uuid": "u1"}
        assert store.latest_run("u2") is not None and store.list_runs(1)[0]["updated_at"]
    finally:
        store.close()
    assert "postgresql://" in repr(store)
    with pytest.raises(ValueError, match="PostgresFlowPersistence"):
        SQLiteFlowPersistence(postgres_store_url)


def test_persist_by_url_resumes_answers_and_keys_runs(postgres_store_url: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    @persist(postgres_store_url)
    class Review(Flow[dict]):
        input_provider = "persisted"

        @start()
        def draft(self) -> str:
            calls.append("draft")
            return str(self.ask("ok?"))

        @listen(draft)
        def publish(self, answer: str) -> str:
            calls.append("publish")
            return f"published: {answer}"

    pending = Review().kickoff()
    assert pending.run_id and calls == ["draft"]
    store: Any = Review()._persistence_plan()[""][0]
    mine = acquire_lease(store.lease_backend(), f"flow:{pending.run_id}", ttl=5, owns_backend=True)
    try:
        with pytest.raises(RunLeasedError, match=f"pid {os.getpid()}.*lease expires at"):
            Review().resume(pending.run_id, "yes")
    finally:
        mine.release()
    assert Review().resume(pending.run_id, "yes") == "published: yes"
    assert calls == ["draft", "draft", "publish"]  # the asking method runs again with its answer, once

    monkeypatch.setenv("CREWGRAPH_STORE_URL", postgres_store_url)  # the default store, by the environment

    @persist
    class Keyed(Flow[dict]):
        @start()
        def a(self) -> str:
            calls.append("a")
            return f"a{self.state.get('n', 0)}"

    before = len(calls)
    assert Keyed().kickoff({"n": 1}, run_key="nightly") == "a1"
    assert Keyed().kickoff({"n": 1}, run_key="nightly") == "a1"  # recorded: nothing runs again
    assert calls[before:] == ["a"]
    with pytest.raises(CheckpointError, match="other inputs"):
        Keyed().kickoff({"n": 2}, run_key="nightly")
    default: FlowPersistence = Keyed()._persistence_plan()[""][0]
    assert type(default).__name__ == "PostgresFlowPersistence"


def test_a_definition_written_out_never_holds_the_url_password(postgres_store_url: str) -> None:
    from crewgraph.checkpoint.location import without_password
    from crewgraph.flow.flow_definition import FlowDefinition, FlowPersistenceDefinition

    secret = postgres_store_url.replace("postgresql://", "postgresql://crew:s3cret@", 1) \
        if "@" not in postgres_store_url else postgres_store_url
    store = flow_persistence(secret)
    try:
        definition = FlowDefinition.model_validate({"name": "kept", "methods": {
            "a": {"start": True, "do": {"call": "expression", "expr": "1"}}}})
        definition.persist = FlowPersistenceDefinition(enabled=True, persistence=store)
        written = definition.to_dict()["persist"]["persistence"]
    finally:
        store.close()
    assert written["ref"].endswith(":PostgresFlowPersistence")
    assert "s3cret" not in written["db_path"] and written["db_path"] == without_password(secret)
    assert without_password("postgresql://u:p@h:5/db?schema=x") == "postgresql://u@h:5/db?schema=x"
    assert without_password("postgresql://:p@h/db") == "postgresql://h/db"
    assert without_password("/tmp/flows.db") == "/tmp/flows.db"
