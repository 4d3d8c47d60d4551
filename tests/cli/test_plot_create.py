"""`crewgraph plot` and `crewgraph create crew` (plus the one real subprocess run)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _cli_modules import FLOW_MODULE

from crewgraph.cli.create_cmd import project_names


def test_plot_writes_the_plan(cli, project: Path) -> None:
    dot = cli("plot", "-o", "-")
    assert dot.exit_code == 0
    assert dot.stdout.startswith("digraph") and "research_task" in dot.stdout
    written = cli("plot", "-o", "out/plan.dot")
    assert written.exit_code == 0 and (project / "out" / "plan.dot").read_text().startswith("digraph")
    # with --inputs the placeholders are checked (current_year is only added by a before_kickoff hook)
    bad = cli("plot", "-i", "topic=x", "-o", "-")
    assert bad.exit_code == 1 and "current_year" in bad.stderr


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")
def test_plot_svg_with_graphviz(cli, project: Path) -> None:
    result = cli("plot", "-o", "crew.svg")
    assert result.exit_code == 0, result.output
    assert "<svg" in (project / "crew.svg").read_text()


def test_plot_a_flow(cli, write_module) -> None:
    mod = write_module(FLOW_MODULE)
    result = cli("plot", f"{mod}:Greeting", "-o", "-")
    assert result.exit_code == 0, result.output
    assert "begin" in result.stdout and "shout" in result.stdout


def test_names() -> None:
    assert project_names("Latest AI development") == {
        "name": "latest-ai-development",
        "package": "latest_ai_development",
        "class_name": "LatestAIDevelopment",
        "title": "Latest AI Development",
        "crewgraph_version": project_names("x")["crewgraph_version"],
    }
    assert project_names("my-crew")["class_name"] == "MyCrew"


def test_create_refuses_an_existing_folder(cli, tmp_path: Path) -> None:
    assert cli("create", "crew", "twice").exit_code == 0
    again = cli("create", "crew", "twice")
    assert again.exit_code == 1 and "already exists" in again.stderr


def test_scaffold_layout_and_its_own_test(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = cli("create", "crew", "news desk", "--path", "projects", "--classic")
    assert result.exit_code == 0, result.output
    root = tmp_path / "projects" / "news_desk"
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    assert files == [
        ".env.example", ".gitignore", "README.md", "pyproject.toml",
        "src/news_desk/__init__.py", "src/news_desk/config/agents.yaml", "src/news_desk/config/tasks.yaml",
        "src/news_desk/crew.py", "src/news_desk/main.py",
        "src/news_desk/tools/__init__.py", "src/news_desk/tools/custom_tool.py", "tests/test_crew.py",
    ]
    assert 'run_crew = "news_desk.main:run"' in (root / "pyproject.toml").read_text()
    # CrewAI's import paths, as its template writes them
    source = (root / "src" / "news_desk" / "crew.py").read_text()
    assert "from crewgraph.agents.agent_builder.base_agent import BaseAgent" in source
    assert "from crewgraph.project import CrewBase, agent, before_kickoff, crew, task" in source
    # the scaffold's own FakeLLM test passes (run in-process)
    monkeypatch.syspath_prepend(str(root / "src"))
    spec = importlib.util.spec_from_file_location("news_desk_test", root / "tests" / "test_crew.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    (tmp_path / "t").mkdir()
    module.test_crew_runs_offline(tmp_path / "t", monkeypatch)


def test_scaffolded_project_runs_in_a_real_subprocess(cli, tmp_path: Path) -> None:
    assert cli("create", "crew", "field notes", "--classic").exit_code == 0
    root = tmp_path / "field_notes"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(root / "src"), str(Path(__file__).resolve().parents[2])]),
        "CREWGRAPH_STORAGE_DIR": str(tmp_path / "store"),
    }
    env.pop("CREWGRAPH_LLM", None)
    proc = subprocess.run(
        [sys.executable, "-m", "crewgraph.cli", "run", "--llm", "fake", "-i", "topic=tides"],
        cwd=root, env=env, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("(fake answer from crewgraph --llm fake)")
    assert "✔ research_task" in proc.stderr and "inputs: topic='tides'" in proc.stderr
    assert (root / "report.md").is_file()
    assert (tmp_path / "store" / "checkpoints.db").is_file()
