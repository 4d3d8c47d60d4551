"""What the UI shows is true: the kickoff form is prefilled with the inputs the project's entry
point passes, and runs answered by the demo model (``--llm fake``) are marked as such."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from _forkserver import run_python

from crewgraph.cli.create_cmd import scaffold_crew

REPO = Path(__file__).resolve().parents[2]


def test_the_kickoff_form_gets_the_entry_points_inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from crewgraph.ui._targets import Registry

    root = scaffold_crew("prefill demo", tmp_path)  # main.py: run() kicks off with topic="AI agents"
    monkeypatch.chdir(root)
    monkeypatch.setattr(sys, "path", list(sys.path))
    ref = next(iter(Registry([None], root).targets.values()))
    assert ref.default_inputs == {"topic": "AI agents"}  # current_year is computed when run() runs
    assert "topic" in ref.inputs


def test_a_demo_model_run_is_marked(tmp_path: Path) -> None:
    root = scaffold_crew("marked demo", tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO), "CREWGRAPH_STORAGE_DIR": str(tmp_path / "store")}
    env.pop("CREWGRAPH_LLM", None)
    cli = ["-m", "crewgraph.cli"]  # each a new process, forked from a Python with crewgraph imported
    for args in (["run", "--llm", "fake", "-q"], ["run", "-q", "--llm", "fake", "-i", "topic=bees"]):
        proc = run_python([*cli, *args], cwd=root, env=env, timeout=180)
        assert proc.returncode == 0, proc.stderr
    listed = run_python([*cli, "checkpoints", "list", "--json"], cwd=root, env=env, timeout=120)
    assert listed.returncode == 0, listed.stderr
    from crewgraph.ui._runs import crew_runs

    db = next((root / ".crewgraph").glob("*.db"), None) or next((tmp_path / "store").rglob("*.db"))
    runs = crew_runs(db)
    assert len(runs) == 2 and all(r["demo_model"] is True for r in runs), json.dumps(runs, default=str)[:2000]


def test_a_runs_duration_excludes_the_time_it_waited() -> None:
    from types import SimpleNamespace

    from crewgraph.ui._runs import _active_seconds

    def node(start: float, ms: float, parent: str | None = None) -> SimpleNamespace:
        return SimpleNamespace(info={"started_at": start, "duration_ms": ms, "parent": parent})

    # two overlapping steps, an hour paused for a review, then the resumed step; a tool call inside
    nodes = [node(100.0, 2000), node(101.0, 2000), node(3700.0, 1000), node(3700.5, 100, parent="t1.agent")]
    assert _active_seconds(nodes, wall=3601.0) == 4.0
    assert _active_seconds([], wall=12.5) == 12.5  # no timings: the wall time
