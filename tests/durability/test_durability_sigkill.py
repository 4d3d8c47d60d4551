"""SIGKILL a checkpointed crew at different moments, resume in a new process, compare.

Each scenario kills the run one or more times (after a given number of LLM
calls, sometimes mid-call, sometimes right after a node's save), then lets a
last process finish it. The final output must equal an uninterrupted run,
and no process may call the LLM or a tool for a task whose node was already
checkpointed when that process started.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from _forkserver import ForkedProcess, start_python

import crewgraph
from crewgraph.checkpoint import SQLiteCheckpointStore

HERE = Path(__file__).resolve().parent
APP = HERE / "_kill_app.py"
REPO_ROOT = Path(crewgraph.__file__).resolve().parents[1]
LATENCY = 0.1
TASKS = ("alpha", "beta", "gamma", "delta", "epsilon")


def _spawn(db: Path, log: Path, hold: int | None = None) -> ForkedProcess:
    """A new process running the app, forked from a Python that has imported crewgraph; with
    ``hold``, its ``hold``-th LLM call never answers (it is killed there)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(HERE)])}
    held = [str(hold)] if hold is not None else []
    return start_python([str(APP), str(db), str(log), str(LATENCY), *held], env=env,
                        output=db.with_name(f"process-{next(_SPAWNED)}"))


_SPAWNED = itertools.count(1)


def _entries(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def _llm_calls(log: Path, pid: int | None = None) -> list[dict[str, Any]]:
    return [e for e in _entries(log) if e["kind"] == "llm" and (pid is None or e["pid"] == pid)]


def _wait_for_calls(log: Path, proc: ForkedProcess, count: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while len(_llm_calls(log, proc.pid)) < count:
        if proc.poll() is not None:
            raise AssertionError(f"process ended before {count} LLM calls: {proc.output()[1]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"no {count} LLM calls within {timeout}s")
        time.sleep(0.005)


def _finished_tasks(db: Path) -> set[str]:
    """Tasks whose agent node is checkpointed (what a resume must not run again)."""
    if not db.exists():
        return set()
    with SQLiteCheckpointStore(db) as store:
        runs = store.list_runs(name="killable")
        if not runs:
            return set()
        done = store.completed(runs[0].run_id)
    return {node.split("_", 1)[1].split(".")[0] for node in done if node.endswith(".agent")}


def _finish(proc: ForkedProcess) -> dict[str, Any]:
    proc.wait(timeout=60)
    stdout, stderr = proc.output()
    assert proc.returncode == 0, stderr
    result: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """An uninterrupted run (in this process, no latency): what every resumed run must reproduce."""
    from _kill_app import build_crew

    tmp = tmp_path_factory.mktemp("baseline")
    log = tmp / "calls.jsonl"
    out = build_crew(tmp / "cp.db", log, 0.0).kickoff({"topic": "durability"})
    calls = _llm_calls(log)
    per_task = {t: sum(1 for c in calls if c["task"] == t) for t in TASKS}
    return {"raw": out.raw, "tasks": [t.raw for t in out.tasks_output], "calls_per_task": per_task}


# kills: each process is SIGKILLed inside its N-th LLM call (held open until then, so the kill
# lands there however late this process gets to it); saved: tasks surely checkpointed before
# the last process starts.
SCENARIOS: dict[str, tuple[list[int], set[str]]] = {
    "during-first-call": ([1], set()),
    "mid-node-then-right-after-a-save": ([5, 2], {"alpha", "beta", "gamma"}),
    "late-in-the-last-task": ([7], {"alpha", "beta", "gamma", "delta"}),
}


@pytest.mark.parametrize(("kills", "saved"), list(SCENARIOS.values()), ids=list(SCENARIOS))
def test_sigkill_then_resume_matches_uninterrupted_run(
    tmp_path: Path, baseline: dict[str, Any], kills: list[int], saved: set[str]
) -> None:
    db, log = tmp_path / "cp.db", tmp_path / "calls.jsonl"
    assert baseline["calls_per_task"] == {"alpha": 2, "beta": 2, "gamma": 1, "delta": 1, "epsilon": 1}
    finished_before: dict[int, set[str]] = {}
    for calls in kills:
        finished_before_start = _finished_tasks(db)
        proc = _spawn(db, log, hold=calls)
        finished_before[proc.pid] = finished_before_start
        _wait_for_calls(log, proc, calls)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        assert proc.returncode == -signal.SIGKILL
    finished_before_last = _finished_tasks(db)
    last = _spawn(db, log)
    finished_before[last.pid] = finished_before_last
    result = _finish(last)

    assert result["raw"] == baseline["raw"]
    assert result["tasks"] == baseline["tasks"]
    for entry in _entries(log):
        done = finished_before[entry["pid"]]
        assert entry["task"] not in done, (
            f"process {entry['pid']} made a {entry['kind']} call for {entry['task']!r}, "
            f"which was checkpointed before it started ({sorted(done)})"
        )
    # Every process after the first resumed the same run (one run in the store).
    with SQLiteCheckpointStore(db) as store:
        runs = store.list_runs(name="killable")
    assert [r.status for r in runs] == ["completed"] and runs[0].run_id == result["run_id"]
    # Work really was saved before the last process (else this test proves little) ...
    assert finished_before_last >= saved
    # ... and the last process ran every unfinished task whole, from its start, exactly once.
    mine = _llm_calls(log, last.pid)
    for task in TASKS:
        expected = 0 if task in finished_before_last else baseline["calls_per_task"][task]
        assert sum(1 for c in mine if c["task"] == task) == expected, task
