"""A checkpointed default-context run stores the text of earlier outputs once (issue 28 item 4).

Each task's prompt holds every earlier output; the store keeps those entries in
``context_entries`` once per run and each node's pickle refers to them
(``crewgraph.checkpoint._shared_context``). These tests check that a resume from any node
sends the same requests and ends with the same outputs as an uninterrupted run, that rows of
the older plain format (and a version-1 store) still load, and that forks, run transfers
(a Ray batch worker's run), fencing and plain pickles (Ray) keep working.
"""

from __future__ import annotations

import json
import pickle
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph._internal.shared_prompt import CompactMessage, ContextRef, compact_message
from crewgraph.checkpoint import CheckpointConfig, CheckpointError
from crewgraph.checkpoint.batch_store import BatchStore
from crewgraph.checkpoint.location import open_checkpoint_store
from crewgraph.errors import CrewGraphError
from crewgraph.testing import FakeLLM

N = 5
ANSWERS = [f"answer-{i}-" + "x" * (40 + i) for i in range(N)]


def _crew(llm: Any, location: Path | str) -> Crew:
    agent = Agent(role="R", goal="g", backstory="b", llm=llm, max_retry_limit=0, respect_context_window=False)
    tasks = [Task(description=f"task {i}", expected_output=f"e {i}", agent=agent) for i in range(N)]
    return Crew(name="shared", agents=[agent], tasks=tasks, checkpoint=CheckpointConfig(path=location))


def _sent(llm: FakeLLM) -> list[str]:
    return [json.dumps(call.messages) for call in llm.calls]


def _kept(out: Any) -> list[str]:
    return [task.model_dump_json() for task in out.tasks_output]


def _store_rows(location: Path | str, run_id: str) -> tuple[list[bytes], list[tuple[str, int, str]]]:
    with open_checkpoint_store(location) as store, store._read() as conn:
        blobs = [bytes(r[0]) for r in conn.execute(
            "SELECT output FROM node_outputs WHERE run_id = ? AND output IS NOT NULL", (run_id,)).fetchall()]
        entries = [(str(k), int(i), str(t)) for k, i, t in conn.execute(
            "SELECT list_key, idx, text FROM context_entries WHERE run_id = ? ORDER BY list_key, idx",
            (run_id,)).fetchall()]
    return blobs, entries


def test_a_resume_from_any_node_sends_and_keeps_what_an_uninterrupted_run_does(store_location: Path | str) -> None:
    whole_llm = FakeLLM(list(ANSWERS))
    whole = _crew(whole_llm, store_location).kickoff()
    sent, kept = _sent(whole_llm), _kept(whole)
    blobs, entries = _store_rows(store_location, str(whole.run_id))
    # each earlier output is stored once: entries 0..N-2 of one list, and no node's pickle
    # past the second (whose one-output context is not shared) holds answer 0
    assert [(i, t) for _k, i, t in entries] == [(i, f"[task {i}]\n{ANSWERS[i]}") for i in range(N - 1)]
    assert sum(ANSWERS[0].encode() in b for b in blobs) == 2

    for stop in (1, 2, 4):
        failing = FakeLLM([*ANSWERS[:stop], RuntimeError("provider down")])
        with pytest.raises(CrewGraphError) as info:
            _crew(failing, store_location).kickoff()
        run_id = str(info.value.run_id)  # type: ignore[attr-defined]
        rest = FakeLLM(ANSWERS[stop:])
        resumed = _crew(rest, store_location).kickoff(from_checkpoint=run_id)
        assert _sent(failing)[:stop] == sent[:stop], stop
        assert _sent(rest) == sent[stop:], stop  # the restored outputs are the context, byte for byte
        assert _kept(resumed) == kept, stop  # outputs and their prompts, restored ones included
        restored = [t.messages[1] for t in resumed.tasks_output[2:stop]]
        assert all(type(m) is CompactMessage for m in restored)
    # the UI's run view reads a node's output from the store
    from crewgraph.ui._runs import node_output

    with open_checkpoint_store(store_location) as store:
        last = list(store.completed(run_id))[-1]
    found, value = node_output(store_location, store_location, {"store": "checkpoints", "run_id": run_id}, last)
    assert found and value.model_dump_json() == kept[-1]


def _downgrade_to_plain_rows(path: Path, run_id: str) -> None:
    """Rewrite a run's rows as crewgraph wrote them before: plain pickles, no context_entries
    table, schema version 1."""
    with open_checkpoint_store(path) as store:
        outputs = store.completed(run_id)
    conn = sqlite3.connect(path)
    for node_id, output in outputs.items():
        conn.execute("UPDATE node_outputs SET output = ? WHERE run_id = ? AND node_id = ?",
                     (pickle.dumps(output, protocol=pickle.HIGHEST_PROTOCOL), run_id, node_id))
    conn.execute("DROP TABLE context_entries")
    conn.execute("PRAGMA user_version=1")
    conn.commit()
    conn.close()


def test_a_store_written_before_the_shared_entries_still_resumes(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    whole_llm = FakeLLM(list(ANSWERS))
    kept = _kept(_crew(whole_llm, path).kickoff())
    failing = FakeLLM([*ANSWERS[:3], RuntimeError("provider down")])
    with pytest.raises(CrewGraphError) as info:
        _crew(failing, path).kickoff()
    run_id = str(info.value.run_id)  # type: ignore[attr-defined]
    _downgrade_to_plain_rows(path, run_id)
    blobs, _ = _store_rows(path, run_id)  # opening it adds the table and stamps version 2
    assert sum(ANSWERS[0].encode() in b for b in blobs) == 3  # old rows: every prompt whole
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone() == (2,)
    rest = FakeLLM(ANSWERS[3:])
    assert _kept(_crew(rest, path).kickoff(from_checkpoint=run_id)) == kept
    assert _sent(rest) == _sent(whole_llm)[3:]


def test_a_postgres_schema_of_version_1_gets_the_entries_table(postgres_store_url: str) -> None:
    from crewgraph.checkpoint import _postgres

    with open_checkpoint_store(postgres_store_url) as store, store._write() as conn:
        conn.execute("DROP TABLE context_entries")
        conn.execute("DELETE FROM crewgraph_schema")
        conn.execute("INSERT INTO crewgraph_schema (version) VALUES (1)")
    _postgres._ready.clear()  # a new process: it prepares the schema again
    llm = FakeLLM(list(ANSWERS))
    out = _crew(llm, postgres_store_url).kickoff()
    _blobs, entries = _store_rows(postgres_store_url, str(out.run_id))
    assert len(entries) == N - 1
    with open_checkpoint_store(postgres_store_url) as store, store._read() as conn:
        assert conn.execute("SELECT max(version) FROM crewgraph_schema").fetchone()[0] == 2


def _compact(parts: list[str], count: int) -> CompactMessage:
    return compact_message("head ", ContextRef(parts, count, " | "), " tail")


def test_forks_and_run_transfers_carry_the_entries_and_plain_pickles_hold_the_text(tmp_path: Path) -> None:
    parts = ["one", "two", "three"]
    store = open_checkpoint_store(tmp_path / "a.db")
    store.start_run("r", name="crew")
    store.save_node("r", "n1", output={"messages": [_compact(parts, 2)]})
    store.save_node("r", "n2", output={"messages": [_compact(parts, 3)]})
    assert [(i, t) for _k, i, t in _store_rows(tmp_path / "a.db", "r")[1]] == [(0, "one"), (1, "two"), (2, "three")]
    fork = store.fork("r", "b")
    store.delete_run("r")  # the fork has its own copy; the run's entries go with it
    assert _store_rows(tmp_path / "a.db", "r")[1] == [] and len(_store_rows(tmp_path / "a.db", fork)[1]) == 3
    restored = store.completed(fork)
    assert restored["n2"]["messages"][0] == {"role": "user", "content": "head one | two | three tail"}
    assert restored["n1"]["messages"][0]["content"] == "head one | two tail"
    m1, m2 = restored["n1"]["messages"][0], restored["n2"]["messages"][0]
    assert type(m1) is CompactMessage and m1._source.context.parts is m2._source.context.parts  # type: ignore[union-attr]

    # a run moved between stores (a Ray batch worker's) takes its entries along
    with BatchStore(tmp_path / "a.db") as source, BatchStore(tmp_path / "b.db") as target:
        moved = source.export_run(fork)
        assert moved is not None and len(moved.entries) == 3
        target.import_run(moved)
    with open_checkpoint_store(tmp_path / "b.db") as other:
        assert other.completed(fork) == restored

    # a row of the shared format needs the store
    blob = _store_rows(tmp_path / "b.db", fork)[0][0]
    with pytest.raises(CheckpointError, match="load it through the checkpoint store"):
        pickle.loads(blob)
    store.close()


def test_a_compact_message_crosses_to_a_ray_worker_as_its_text() -> None:
    pytest.importorskip("ray", reason="ray is not installed (pip install 'crewgraph[ray]')")
    from crewgraph.distributed._pickling import StepPickler, dumps_reply

    message = _compact(["one", "two", "three"], 3)
    for blob in (pickle.dumps(message), StepPickler().dumps([message]), dumps_reply([message])):
        carried = pickle.loads(blob)
        carried = carried[0] if isinstance(carried, list) else carried
        assert type(carried) is dict and carried == {"role": "user", "content": "head one | two | three tail"}
