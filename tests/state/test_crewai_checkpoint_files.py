"""CrewAI's checkpoint records: the providers' methods, the file layout, RuntimeState, and a
resume from a checkpoint file in another process (the run's outputs live once, in the store)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from _forkserver import run_python

from crewgraph.checkpoint import SQLiteCheckpointStore
from crewgraph.state import CheckpointConfig, JsonProvider, SqliteProvider
from crewgraph.state.checkpoint_config import apply_checkpoint
from crewgraph.state.runtime import RuntimeState

ROOT = Path(__file__).resolve().parents[2]


def test_json_provider_writes_crewai_layout_and_prunes(tmp_path: Path) -> None:
    provider = JsonProvider()
    first = provider.checkpoint('{"a": 1}', str(tmp_path))
    second = provider.checkpoint('{"a": 2}', str(tmp_path), parent_id=provider.extract_id(first))
    other = provider.checkpoint('{"b": 1}', str(tmp_path), branch="fork/x")
    for path in (first, second):
        assert Path(path).parent == tmp_path / "main"
    name = Path(second).name
    stamp, short, parent = name[:15], name[16:24], name[25:-5]
    assert stamp[8] == "T" and len(short) == 8 and parent == f"p-{provider.extract_id(first)}"
    assert Path(first).name.endswith("_p-none.json")
    assert provider.from_checkpoint(second) == '{"a": 2}'
    assert Path(other).parent == tmp_path / "fork" / "x"
    os.utime(first, (1, 1))  # the oldest by time
    assert provider.prune(str(tmp_path), 1) == 1 and not Path(first).exists() and Path(second).exists()
    assert provider.prune(str(tmp_path), 5, branch="fork/x") == 0
    with pytest.raises(ValueError, match="escapes"):
        provider.checkpoint("{}", str(tmp_path), branch="../../elsewhere")


def test_sqlite_provider_rows_and_prune(tmp_path: Path) -> None:
    db = str(tmp_path / "cp.db")
    provider = SqliteProvider()
    locations = [provider.checkpoint(json.dumps({"n": n}), db, branch="main") for n in range(3)]
    assert all(loc.startswith(db + "#") for loc in locations)
    assert json.loads(provider.from_checkpoint(locations[1])) == {"n": 1}
    assert provider.extract_id(locations[2]) == locations[2].rpartition("#")[2]
    assert provider.prune(db, 1) == 2
    with pytest.raises(ValueError, match="no checkpoint"):
        provider.from_checkpoint(locations[0])


def test_runtime_state_chains_lineage_and_forks(tmp_path: Path) -> None:
    state = RuntimeState(root=[{"entity_type": "flow", "name": "demo"}])
    first = state.checkpoint(str(tmp_path))
    second = state.checkpoint(str(tmp_path))
    assert Path(second).name.endswith(f"_p-{JsonProvider().extract_id(first)}.json")
    state.fork("try-b")
    third = state.checkpoint(str(tmp_path))
    assert Path(third).parent == tmp_path / "try-b"
    restored = RuntimeState.from_checkpoint(CheckpointConfig(restore_from=third))
    assert restored.branch == "try-b" and restored.root == [{"entity_type": "flow", "name": "demo"}]
    document = json.loads(Path(third).read_text())
    assert set(document) >= {"crewai_version", "parent_id", "branch", "entities", "event_record"}
    with pytest.raises(ValueError, match="restore_from"):
        RuntimeState.from_checkpoint(CheckpointConfig())


def _script(*args: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = run_python(["-m", "tests.state.apps.trends_crew", *args], cwd=ROOT, env=env, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_crew_checkpoint_files_resume_in_another_process(tmp_path: Path) -> None:
    location = tmp_path / "checkpoints"
    assert "failed" in _script("run", str(location))
    [research] = sorted((location / "main").glob("*.json"))  # one per completed task
    document = json.loads(research.read_text())
    assert document["branch"] == "main" and document["parent_id"] is None
    assert document["entities"][0]["entity_type"] == "crew" and document["entities"][0]["name"] == "trends"
    assert document["crewgraph"]["completed"] == ["research"]
    run_id = document["crewgraph"]["run_id"]

    resumed = _script("resume", str(location), str(research))
    assert resumed == {"raw": "the summary", "run_id": run_id, "calls": 1}  # research not re-run
    files = sorted((location / "main").glob("*.json"), key=lambda p: p.name)
    assert len(files) == 2  # + the summary task (the resuming config's on_events: task_completed)
    later = [json.loads(p.read_text()) for p in files if p != research]
    assert {d["parent_id"] for d in later} >= {JsonProvider().extract_id(str(research))}
    with SQLiteCheckpointStore(location / "checkpoints.db") as store:
        assert [r.run_id for r in store.list_runs()] == [run_id]  # the outputs are recorded once


def test_apply_checkpoint() -> None:
    class Thing:
        checkpoint = None

    thing = Thing()
    assert apply_checkpoint(thing, None) is thing
    config = CheckpointConfig(location="somewhere")
    assert apply_checkpoint(thing, config) is thing and thing.checkpoint is config
    with pytest.raises(TypeError, match="CheckpointConfig"):
        apply_checkpoint(thing, "nope")  # type: ignore[arg-type]
