"""Batches on this machine (crewgraph/runner/batch.py): order, bounded concurrency, results as they finish,
failures, checkpointed resume."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from _forkserver import start_python

from crewgraph import Agent, Crew, CrewOutput, Task
from crewgraph.checkpoint import CheckpointConfig, SQLiteCheckpointStore
from crewgraph.checkpoint.batch_store import BatchStore
from crewgraph.distributed import BatchResult
from crewgraph.errors import BatchError, CheckpointError
from crewgraph.testing import FakeLLM


def _topic(req: Any) -> str:
    """The {topic} a request is about (the task text is 'Write about <topic>')."""
    for message in req.messages:
        text = str(message.get("content") or "")
        if "Write about " in text:
            return text.split("Write about ", 1)[1].split()[0].strip(".")
    return "?"


def _crew(llm: Any, path: Path | None = None, *, tasks: int = 1, name: str = "batcher") -> Crew:
    agent = Agent(role="Writer", goal="Write", backstory="Clear", llm=llm, max_retry_limit=0)
    steps = [Task(name="write", description="Write about {topic}.", expected_output="text", agent=agent)]
    steps += [Task(name=f"polish{i}", description=f"Polish {i}", expected_output="text", agent=agent)
              for i in range(1, tasks)]
    checkpoint = CheckpointConfig(path=path) if path is not None else None
    return Crew(name=name, agents=[agent], tasks=steps, checkpoint=checkpoint)


def _echo(req: Any) -> str:
    return f"on {_topic(req)}"


INPUTS = [{"topic": t} for t in ("a", "b", "c", "d", "e")]


def test_list_form_keeps_input_order_and_runs_one_after_the_other() -> None:
    live, peak = [0], [0]

    async def reply(req: Any) -> str:
        live[0] += 1
        peak[0] = max(peak[0], live[0])
        await asyncio.sleep(0.01)
        live[0] -= 1
        return _echo(req)

    outs = _crew(FakeLLM(default=reply)).kickoff_for_each(INPUTS)
    assert [o.raw for o in outs] == ["on a", "on b", "on c", "on d", "on e"]
    assert all(isinstance(o, CrewOutput) for o in outs)
    assert peak[0] == 1  # CrewAI's kickoff_for_each: one after the other


def test_max_concurrency_bounds_the_runs_in_flight() -> None:
    live, peak = [0], [0]

    async def reply(req: Any) -> str:
        live[0] += 1
        peak[0] = max(peak[0], live[0])
        await asyncio.sleep(0.03)
        live[0] -= 1
        return _echo(req)

    crew = _crew(FakeLLM(default=reply))
    outs = asyncio.run(crew.kickoff_for_each_async(INPUTS * 2, max_concurrency=3))
    assert [o.raw for o in outs] == [f"on {i['topic']}" for i in INPUTS * 2]
    assert peak[0] == 3


def test_iterator_yields_each_input_as_it_finishes() -> None:
    async def reply(req: Any) -> str:
        await asyncio.sleep(0.3 if _topic(req) == "a" else 0.0)
        return _echo(req)

    run = _crew(FakeLLM(default=reply)).kickoff_for_each_iter(INPUTS[:3], max_concurrency=3)
    assert run.total == 3
    results = list(run)
    assert all(isinstance(r, BatchResult) and r.ok for r in results)
    assert results[-1].index == 0  # the slow input comes last, the others did not wait for it
    assert sorted(r.index for r in results) == [0, 1, 2]
    assert {r.index: r.output.raw for r in results} == {0: "on a", 1: "on b", 2: "on c"}
    assert run.batch_id is None  # not checkpointed
    with pytest.raises(RuntimeError, match="only once"):
        list(run)


def test_iterator_works_with_async_for() -> None:
    crew = _crew(FakeLLM(default=_echo))

    async def main() -> list[int]:
        return [r.index async for r in crew.kickoff_for_each_iter(INPUTS, max_concurrency=2)]

    assert sorted(asyncio.run(main())) == [0, 1, 2, 3, 4]


def test_a_failed_input_does_not_lose_the_others(tmp_path: Path) -> None:
    def flaky(req: Any) -> str:
        if _topic(req) in ("b", "d"):
            raise RuntimeError(f"provider down for {_topic(req)}")
        return _echo(req)

    db = tmp_path / "cp.db"
    crew = _crew(FakeLLM(default=flaky), db)
    with pytest.raises(BatchError) as info:
        crew.kickoff_for_each(INPUTS)
    err = info.value
    assert sorted(err.failures) == [1, 3]
    assert "provider down for b" in err.failures[1]
    assert [o.raw if o is not None else None for o in err.results] == ["on a", None, "on c", None, "on e"]
    assert err.batch_id is not None and err.batch_id in str(err)
    assert "2 of 5 inputs failed" in str(err)

    calls: list[str] = []

    def healed(req: Any) -> str:
        calls.append(_topic(req))
        return _echo(req)

    outs = _crew(FakeLLM(default=healed), db).kickoff_for_each(INPUTS, from_checkpoint=err.batch_id)
    assert [o.raw for o in outs] == ["on a", "on b", "on c", "on d", "on e"]
    assert sorted(calls) == ["b", "d"]  # only the failed inputs ran again
    with BatchStore(db) as store:
        info_after = store.get_batch(err.batch_id)
    assert info_after.status == "completed" and info_after.completed == 5


def test_resume_yields_finished_inputs_as_restored_without_running_them(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    crew = _crew(FakeLLM(default=_echo), db)
    run = crew.kickoff_for_each_iter(INPUTS, max_concurrency=1)
    seen = []
    for result in run:
        seen.append(result.index)
        if len(seen) == 2:
            break  # the caller walks away: the rest is cancelled, the batch stays unfinished
    assert run.batch_id is not None
    with BatchStore(db) as store:
        statuses = [i.status for i in store.items(run.batch_id)]
        assert store.get_batch(run.batch_id).status == "running"
    assert statuses.count("completed") >= 2 and "completed" not in statuses[3:]

    llm = FakeLLM(default=_echo)
    results = list(_crew(llm, db).kickoff_for_each_iter(INPUTS, from_checkpoint=run.batch_id))
    restored = {r.index for r in results if r.restored}
    assert {0, 1} <= restored
    assert sorted(r.index for r in results) == [0, 1, 2, 3, 4]
    # an input cancelled after its node was checkpointed resumes from that node: no call either
    assert llm.call_count <= 5 - len(restored)
    assert all(r.run_id and r.batch_id == run.batch_id for r in results)
    assert {r.index: r.output.raw for r in results}[0] == "on a"


def test_an_input_interrupted_half_way_resumes_from_its_finished_nodes(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"

    def fail_polish(req: Any) -> str:
        if "Polish 1" in str(req.messages):
            raise RuntimeError("polisher down")
        return "draft"

    with pytest.raises(BatchError) as info:
        _crew(FakeLLM(default=fail_polish), db, tasks=2).kickoff_for_each(INPUTS[:2])
    llm = FakeLLM(default="polished")
    outs = _crew(llm, db, tasks=2).kickoff_for_each(INPUTS[:2], from_checkpoint=info.value.batch_id)
    assert [o.raw for o in outs] == ["polished", "polished"]
    assert [t.raw for t in outs[0].tasks_output] == ["draft", "polished"]  # "write" was restored
    assert llm.call_count == 2  # one polish per input, no second "write"
    with SQLiteCheckpointStore(db) as store, BatchStore(db) as batches:
        run_ids = [i.run_id for i in batches.items(info.value.batch_id)]
        assert all(store.get_run(str(r)).status == "completed" for r in run_ids)


def test_from_checkpoint_true_resumes_the_latest_unfinished_batch_over_the_same_inputs(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    first = _crew(FakeLLM(default=_echo), db).kickoff_for_each_iter(INPUTS, max_concurrency=1)
    for _ in first:
        break
    llm = FakeLLM(default=_echo)
    results = list(_crew(llm, db).kickoff_for_each_iter(INPUTS, from_checkpoint=True))
    assert {r.batch_id for r in results} == {first.batch_id}
    assert llm.call_count < 5
    # finished now: True with the same inputs starts a new batch; other inputs too
    again = list(_crew(FakeLLM(default=_echo), db).kickoff_for_each_iter(INPUTS, from_checkpoint=True))
    assert {r.batch_id for r in again} != {first.batch_id} and not any(r.restored for r in again)


def test_resume_refuses_other_inputs_or_another_crew(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    run = _crew(FakeLLM(default=_echo), db).kickoff_for_each_iter(INPUTS, max_concurrency=1)
    for _ in run:
        break
    assert run.batch_id is not None
    changed = [*INPUTS[:2], {"topic": "zzz"}, *INPUTS[3:]]
    with pytest.raises(CheckpointError, match=r"inputs\[2\] differs"):
        _crew(FakeLLM(default=_echo), db).kickoff_for_each(changed, from_checkpoint=run.batch_id)
    with pytest.raises(CheckpointError, match="has 5 inputs, but 2"):
        _crew(FakeLLM(default=_echo), db).kickoff_for_each(INPUTS[:2], from_checkpoint=run.batch_id)
    with pytest.raises(CheckpointError, match="not 'other'"):
        _crew(FakeLLM(default=_echo), db, name="other").kickoff_for_each(INPUTS, from_checkpoint=run.batch_id)
    with pytest.raises(CheckpointError, match="no batch 'nope'"):
        _crew(FakeLLM(default=_echo), db).kickoff_for_each(INPUTS, from_checkpoint="nope")
    with pytest.raises(CheckpointError, match="batch id, True"):
        _crew(FakeLLM(default=_echo), db).kickoff_for_each(INPUTS, from_checkpoint=3)


def test_bad_inputs_and_options_are_clear_errors() -> None:
    crew = _crew(FakeLLM(default=_echo))
    with pytest.raises(ValueError, match=r"inputs\[1\] must be a dict"):
        crew.kickoff_for_each([{"topic": "a"}, "b"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="list of inputs dicts"):
        crew.kickoff_for_each({"topic": "a"})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_concurrency must be >= 1"):
        crew.kickoff_for_each(INPUTS, max_concurrency=0)
    streaming = _crew(FakeLLM(default=_echo))
    streaming.stream = True
    with pytest.raises(ValueError, match=r"max_concurrency=\.\.\.\) is not supported with stream=True"):
        streaming.kickoff_for_each(INPUTS, max_concurrency=2)
    with pytest.raises(ValueError, match="not supported with stream=True"):
        streaming.kickoff_for_each_iter(INPUTS)


_KILLED_BATCH = """
import sys
from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.testing import FakeLLM

agent = Agent(role="Writer", goal="Write", backstory="Clear", llm=FakeLLM(default="done", latency=0.05))
task = Task(name="write", description="Write about {topic}.", expected_output="text", agent=agent)
crew = Crew(name="batcher", agents=[agent], tasks=[task], checkpoint=CheckpointConfig(path=sys.argv[1]))
crew.kickoff_for_each([{"topic": f"t{i}"} for i in range(40)], max_concurrency=2)
"""


def _completed(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM batch_items WHERE status = 'completed'").fetchone()[0])
    except sqlite3.OperationalError:  # the tables do not exist yet
        return 0


def test_a_batch_killed_mid_way_resumes_without_rerunning_finished_inputs(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    script = tmp_path / "batch.py"
    script.write_text(textwrap.dedent(_KILLED_BATCH), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = start_python([str(script), str(db)], env=env, output=tmp_path / "batch")  # forked, crewgraph imported
    try:
        deadline = time.monotonic() + 60
        while _completed(db) < 6 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, "the batch ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    with BatchStore(db) as store:
        (batch,) = store.list_batches()
    done_before = batch.completed
    assert 6 <= done_before < 40 and batch.status == "running"

    llm = FakeLLM(default="done")
    inputs = [{"topic": f"t{i}"} for i in range(40)]
    outs = _crew(llm, db).kickoff_for_each(inputs, from_checkpoint=batch.batch_id, max_concurrency=8)
    assert len(outs) == 40 and all(o.raw == "done" for o in outs)
    # at most the 2 inputs in flight at the kill had their node checkpointed but not their item
    assert 40 - done_before - 2 <= llm.call_count <= 40 - done_before
    with BatchStore(db) as store:
        assert store.get_batch(batch.batch_id).status == "completed"
