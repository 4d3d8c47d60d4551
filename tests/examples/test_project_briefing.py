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


def test_the_listing_leaves_out_bytecode_caches_and_ignored_files(tmp_path: Path) -> None:
    import project_briefing

    pkg = tmp_path / "pkg"
    (pkg / "__pycache__").mkdir(parents=True)
    (pkg / "sub").mkdir()
    (pkg / "mod.py").write_text('"""A module."""\n')
    (pkg / "sub" / "deep.py").write_text("x = 1\n")
    (pkg / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"\0")
    (pkg / "stale.pyc").write_bytes(b"\0")
    (pkg / "notes.log").write_text("log")
    (pkg / "generated").mkdir()
    (pkg / "generated" / "big.py").write_text("y = 2\n")
    (tmp_path / ".gitignore").write_text("*.log\ngenerated/\n# a comment\n!keep.log\n")
    names = [p.relative_to(pkg).as_posix() for p in project_briefing.source_files(pkg)]
    assert names == ["mod.py", "sub/deep.py"]
    listing = project_briefing.list_tool(pkg).run()
    assert listing.splitlines() == ["2 files under pkg:", "- pkg/mod.py", "- pkg/sub/deep.py"]


def test_the_guardrail_refuses_a_briefing_cut_mid_sentence() -> None:
    import project_briefing

    from crewgraph import TaskOutput

    whole = "## Overview\nIt is small.\n## Modules\n- `a.py`: one thing.\n## Risks\nNone stand out."
    assert project_briefing.has_sections(TaskOutput(description="d", raw=whole))[0]
    ok, why = project_briefing.has_sections(TaskOutput(description="d", raw=whole[:-12]))
    assert not ok and "mid-sentence" in why


def test_a_briefing_whose_tools_all_failed_says_it_is_not_grounded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import project_briefing

    from crewgraph.tools import tool

    for name in project_briefing.REAL_MODEL_ENVS:
        monkeypatch.delenv(name, raising=False)

    def broken(folder: Path) -> object:
        @tool("module_stats")
        def module_stats() -> str:
            """Statistics."""
            raise OSError("the disk is gone")

        return module_stats

    monkeypatch.setattr(project_briefing, "stats_tool", broken)
    out = project_briefing.main([str(EXAMPLES.parent / "crewgraph" / "graph"), "--out", str(tmp_path)])
    hotspots = next(t for t in out.tasks_output if t.name == "hotspots")
    assert hotspots.grounded is False
    assert "the briefing is NOT grounded in the code: hotspots: tool 'module_stats'" in capsys.readouterr().out
    assert (tmp_path / "briefing.md").read_text().startswith("> **Not grounded in the code**")
