"""Idempotent kickoffs: ``run_key`` names a run, so re-issuing a kickoff never runs it twice
(on SQLite and PostgreSQL where a test takes ``store_location``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import crewgraph
from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig, SQLiteCheckpointStore
from crewgraph.checkpoint.location import open_checkpoint_store
from crewgraph.errors import CheckpointError
from crewgraph.testing import FakeLLM

APPS = Path(__file__).resolve().parent / "apps"
APP = APPS / "lease_app.py"
REPO_ROOT = Path(crewgraph.__file__).resolve().parents[1]


def _crew(llm: FakeLLM, db: Path | str, checkpoint: bool = True) -> Crew:
    agent = Agent(role="Writer", goal="Write", backstory="b", llm=llm)
    task = Task(description="Write about {topic}", expected_output="text", agent=agent)
    return Crew(name="keyed", agents=[agent], tasks=[task],
                checkpoint=CheckpointConfig(path=db) if checkpoint else None)


def test_the_same_key_returns_the_recorded_output_without_running(store_location: Path | str) -> None:
    llm = FakeLLM(default="owls hunt at night")
    db = store_location
    first = _crew(llm, db).kickoff({"topic": "owls"}, run_key="nightly-2026-12-01")
    again = _crew(llm, db).kickoff({"topic": "owls"}, run_key="nightly-2026-12-01")
    assert again.raw == first.raw == "owls hunt at night" and again.run_id == first.run_id
    assert len(llm.calls) == 1
    other = _crew(llm, db).kickoff({"topic": "owls"}, run_key="nightly-2026-12-02")
    assert other.run_id != first.run_id and len(llm.calls) == 2
    with open_checkpoint_store(db) as store:
        assert store.get_run(first.run_id).status == "completed"


def test_a_key_turns_checkpointing_on_and_refuses_other_inputs_or_both_options(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(tmp_path / "store"))
    llm = FakeLLM(default="done")
    out = _crew(llm, tmp_path / "unused.db", checkpoint=False).kickoff({"topic": "a"}, run_key="k")
    with SQLiteCheckpointStore(tmp_path / "store" / "checkpoints.db") as store:
        assert store.has_run(out.run_id)  # the default store: a key needs somewhere to live
    with pytest.raises(CheckpointError, match=r"run_key 'k' already names the crew run .* other inputs"):
        _crew(llm, tmp_path / "unused.db", checkpoint=False).kickoff({"topic": "b"}, run_key="k")
    with pytest.raises(CheckpointError, match="give run_key or from_checkpoint, not both"):
        _crew(llm, tmp_path / "cp.db").kickoff({"topic": "a"}, from_checkpoint=True, run_key="k")
    with pytest.raises(CheckpointError, match="non-empty string"):
        _crew(llm, tmp_path / "cp.db").kickoff({"topic": "a"}, run_key="  ")
    assert len(llm.calls) == 1


def test_a_batch_key_reissued_after_it_finished_runs_nothing(store_location: Path | str) -> None:
    llm = FakeLLM(default="tagged")
    inputs = [{"topic": f"t{i}"} for i in range(6)]
    first = _crew(llm, store_location).kickoff_for_each(inputs, run_key="batch-1", max_concurrency=3)
    again = _crew(llm, store_location).kickoff_for_each(inputs, run_key="batch-1")
    assert [o.raw for o in again] == [o.raw for o in first] == ["tagged"] * 6
    assert len(llm.calls) == 6  # the restart loop's window: nothing ran again
    with pytest.raises(CheckpointError, match="other inputs"):
        _crew(llm, store_location).kickoff_for_each(inputs[:3], run_key="batch-1")


def _env(tmp_path: Path, db: Path | str | None = None) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(APPS)]),
            "LEASE_CALL_LOG": str(tmp_path / "calls.log"), "LEASE_DB": str(db or tmp_path / "cp.db"),
            "LEASE_TOOL_LOG": str(tmp_path / "tools.log"), "LEASE_LATENCY": "0.25"}


def _calls(tmp_path: Path) -> list[str]:
    log = tmp_path / "calls.log"
    return [line.split(" ", 1)[1] for line in log.read_text().splitlines()] if log.exists() else []


def test_a_key_reissued_after_a_crash_resumes_the_run_then_returns_it(tmp_path: Path,
                                                                     store_location: Path | str) -> None:
    """SIGKILL mid-run, then the same kickoff re-issued in new processes (on PostgreSQL: across
    processes that share nothing but the server)."""
    env = _env(tmp_path, store_location)
    victim = subprocess.Popen([sys.executable, str(APP), "crew", "nightly"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while "Outline" not in _calls(tmp_path) and victim.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert victim.poll() is None, victim.communicate()
        os.kill(victim.pid, signal.SIGKILL)
    finally:
        victim.wait(timeout=30)
    assert _calls(tmp_path) == ["Gather facts", "Gather facts", "Outline"]
    # the restart script re-issues the same kickoff twice: the run resumes, then is returned
    for _ in range(2):
        done = subprocess.run([sys.executable, str(APP), "crew", "nightly"], env=env, capture_output=True,
                              text=True, timeout=90)
        assert done.returncode == 0 and '"raw": "done: Summarise"' in done.stdout, done.stderr
    assert _calls(tmp_path) == ["Gather facts", "Gather facts", "Outline", "Outline", "Summarise"]
    assert len((tmp_path / "tools.log").read_text().splitlines()) == 1


def test_crewgraph_run_run_key(tmp_path: Path) -> None:
    env = _env(tmp_path)
    cli = [sys.executable, "-m", "crewgraph.cli", "run", "lease_app:batch_crew", "-q", "-i", "topic=t1",
           "--run-key", "cli-1"]
    outputs = []
    for _ in range(2):
        done = subprocess.run(cli, env=env, capture_output=True, text=True, timeout=90, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout.strip())
    assert outputs == ["done: Tag the topic t1"] * 2
    assert _calls(tmp_path) == ["Tag the topic t1"]
    refused = subprocess.run([*cli, "--no-checkpoint"], env=env, capture_output=True, text=True, timeout=90,
                             cwd=tmp_path)
    assert refused.returncode != 0 and "--run-key needs checkpoints" in refused.stderr
