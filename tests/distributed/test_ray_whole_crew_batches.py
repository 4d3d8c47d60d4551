"""Batches on Ray: each input one Ray task on the shared cluster, checkpoints on the driver."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig, SQLiteCheckpointStore
from crewgraph.checkpoint.batch_store import BatchStore
from crewgraph.errors import BatchError
from crewgraph.testing import FakeLLM


@pytest.fixture(autouse=True)
def _ray_installed() -> None:
    """Skips at setup rather than at import (function scope, so the module is not made one xdist group), so collecting the suite does not import ray."""
    pytest.importorskip("ray")


def _topic(req: Any) -> str:
    """The {topic} of a "write" request, or of the draft ("write:<topic>") a "polish" request gets."""
    text = " ".join(str(m.get("content") or "") for m in req.messages)
    for marker in ("Write about ", "write:"):
        if marker in text:
            return text.split(marker, 1)[1].split()[0].strip(".")
    return "?"


class Journal:
    """Appends what each model call did to a file: workers are other processes on this machine."""

    def __init__(self, path: Path, fail: tuple[str, ...] = ()) -> None:
        self.path, self.fail = path, fail

    def __call__(self, req: Any) -> str:
        polish = "Polish the draft" in str(req.messages)
        step = f"{'polish' if polish else 'write'}:{_topic(req)}"
        with self.path.open("a", encoding="utf-8") as f:
            f.write(f"{step} {os.getpid()}\n")
        if polish and _topic(req) in self.fail:
            raise RuntimeError(f"polisher down for {_topic(req)}")
        return f"{step}"

    def calls(self) -> list[tuple[str, int]]:
        if not self.path.exists():
            return []
        return [(s, int(p)) for s, p in (line.split() for line in self.path.read_text().splitlines())]


def _crew(reply: Any, db: Path, *, polish: bool = False) -> Crew:
    agent = Agent(role="Writer", goal="Write", backstory="Clear", llm=FakeLLM(default=reply), max_retry_limit=0)
    tasks = [Task(name="write", description="Write about {topic}.", expected_output="text", agent=agent)]
    if polish:
        tasks.append(Task(name="polish", description="Polish the draft.", expected_output="text", agent=agent))
    return Crew(name="ray_batch", agents=[agent], tasks=tasks, checkpoint=CheckpointConfig(path=db))


INPUTS = [{"topic": t} for t in ("a", "b", "c", "d")]


def test_each_input_runs_on_a_worker_and_its_run_is_checkpointed_on_the_driver(ray_cluster, tmp_path: Path) -> None:
    from crewgraph.distributed import RayExecutor

    journal = Journal(tmp_path / "calls.txt")
    db = tmp_path / "cp.db"
    executor = RayExecutor(address=ray_cluster.address)
    run = _crew(journal, db).kickoff_for_each_iter(INPUTS, executor=executor, max_concurrency=2)
    results = list(run)
    assert sorted(r.index for r in results) == [0, 1, 2, 3]
    assert {r.index: r.output.raw for r in results} == {0: "write:a", 1: "write:b", 2: "write:c", 3: "write:d"}
    pids = {pid for _, pid in journal.calls()}
    assert pids and os.getpid() not in pids  # the runs happened in Ray workers
    with BatchStore(db) as batches, SQLiteCheckpointStore(db) as runs:
        assert batches.get_batch(str(run.batch_id)).status == "completed"
        for item in batches.items(str(run.batch_id)):
            info = runs.get_run(str(item.run_id))
            assert info.status == "completed" and info.meta["resume"]["inputs"] == INPUTS[item.index]
            assert list(runs.completed(str(item.run_id))) == ["t1_write.agent"]
    # the list form keeps input order, on Ray too
    outs = _crew(journal, tmp_path / "other.db").kickoff_for_each(INPUTS[::-1], executor=executor, max_concurrency=2)
    assert [o.raw for o in outs] == ["write:d", "write:c", "write:b", "write:a"]


def test_a_failed_input_resumes_on_ray_from_its_finished_nodes(ray_cluster, tmp_path: Path) -> None:
    from crewgraph.distributed import RayExecutor

    executor = RayExecutor(address=ray_cluster.address)
    db = tmp_path / "cp.db"
    first = Journal(tmp_path / "first.txt", fail=("b",))
    with pytest.raises(BatchError) as info:
        _crew(first, db, polish=True).kickoff_for_each(INPUTS[:3], executor=executor, max_concurrency=2)
    assert list(info.value.failures) == [1] and "polisher down for b" in info.value.failures[1]
    assert [o.raw if o else None for o in info.value.results] == ["polish:a", None, "polish:c"]

    again = Journal(tmp_path / "again.txt")
    outs = _crew(again, db, polish=True).kickoff_for_each(INPUTS[:3], executor=executor, max_concurrency=2,
                                                          from_checkpoint=info.value.batch_id)
    assert [o.raw for o in outs] == ["polish:a", "polish:b", "polish:c"]
    # only input 1 ran again, and only its unfinished task: "write" came back from the driver's store
    assert [step for step, _ in again.calls()] == ["polish:b"]
    assert [t.raw for t in outs[1].tasks_output] == ["write:b", "polish:b"]
