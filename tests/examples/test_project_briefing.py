"""The main job (examples/project_briefing.py) runs offline and produces a useful briefing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES))


def test_briefing_runs_offline_and_writes_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import project_briefing

    for name in project_briefing.REAL_MODEL_ENVS:
        monkeypatch.delenv(name, raising=False)
    folder = EXAMPLES.parent / "crewgraph" / "graph"
    out = project_briefing.main([str(folder), "--out", str(tmp_path)])
    briefing = (tmp_path / "briefing.md").read_text()
    assert briefing.startswith("# Briefing: ")
    for section in ("## Overview", "## Module map", "## Hotspots", "## Suggested next steps"):
        assert section in briefing
    assert "execution_graph.py" in briefing and "runtime/" not in briefing
    assert (tmp_path / "plan.svg").read_text().lstrip().startswith("<?xml")
    run = json.loads((tmp_path / "run.json").read_text())
    kinds = {n["kind"] for n in run["nodes"]}
    assert {"agent_step", "tool", "guardrail"} <= kinds
    assert out.token_usage.successful_requests == 6
    printed = capsys.readouterr().out
    assert "offline stand-in model" in printed and "OPENAI_BASE_URL" in printed
