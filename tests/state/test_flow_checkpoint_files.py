"""A flow's CrewAI checkpoint records (JSON files, SQLite rows) and resuming or forking from
one in another process: completed methods are not run again."""

from __future__ import annotations

import json
import os
from pathlib import Path

from _forkserver import run_python

from crewgraph.flow.persistence import SQLiteFlowPersistence
from crewgraph.state import JsonProvider, SqliteProvider

ROOT = Path(__file__).resolve().parents[2]


def _script(*args: str, fail: bool = False) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "REPORT_FAIL": "1" if fail else "0"}
    done = run_python(["-m", "tests.state.apps.report_flow", *args], cwd=ROOT, env=env, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_json_checkpoint_resume_and_fork_in_other_processes(tmp_path: Path) -> None:
    location = tmp_path / "cp"
    failed = _script("run", "json", str(location), fail=True)
    [after_one] = sorted((location / "main").glob("*.json"))
    document = json.loads(after_one.read_text())
    assert document["entities"][0]["entity_type"] == "flow"
    assert document["entities"][0]["state"]["topic"] == "flows"
    assert document["crewgraph"]["completed"] == ["step_one"]
    assert document["crewgraph"]["run_id"] == failed["run_id"]

    resumed = _script("resume", "json", str(location), str(after_one))
    assert resumed["result"] == "processed data on flows" and resumed["calls"] == ["two"]
    assert resumed["run_id"] == failed["run_id"]
    assert len(list((location / "main").glob("*.json"))) == 2  # + step_two's, parented on the first
    store = SQLiteFlowPersistence(location / "checkpoints.db")
    assert store.load_run(str(failed["run_id"]))["status"] == "completed"

    forked = _script("fork", "json", str(location), str(after_one))
    assert forked["calls"] == ["two"] and forked["run_id"] != failed["run_id"]
    [on_branch] = list((location / "try-b").glob("*.json"))
    assert on_branch.name.endswith(f"_p-{JsonProvider().extract_id(str(after_one))}.json")


def test_sqlite_checkpoint_rows_resume_in_another_process(tmp_path: Path) -> None:
    db = tmp_path / "flows.db"
    failed = _script("run", "sqlite", str(db), fail=True)
    import sqlite3

    with sqlite3.connect(db) as conn:
        [(checkpoint_id, branch)] = conn.execute("SELECT id, branch FROM checkpoints").fetchall()
    assert branch == "main"
    location = f"{db}#{checkpoint_id}"
    assert json.loads(SqliteProvider().from_checkpoint(location))["crewgraph"]["run_id"] == failed["run_id"]
    resumed = _script("resume", "sqlite", str(db), location)
    assert resumed["calls"] == ["two"] and resumed["run_id"] == failed["run_id"]
