"""`crewgraph create crew|flow`: both scaffolds, run for real in subprocesses, offline.

`crewgraph run` calls the project's own entry function as `crewai run` does (main.py's
`run()` for a crew, `kickoff()` for a flow), with the inputs it passes, `-i` overrides,
`.env` read, the answer alone on stdout; the scaffold's own pytest passes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
# The project's own tests run with only pytest, as in a user's project venv: none of the
# plugins this venv has (langsmith's, anyio, xdist...: ~0.5 s of CPU to load) nor this repo's.
ONLY_PYTEST = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def _env(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "CREWGRAPH_STORAGE_DIR": str(tmp_path / "store")}
    for name in ("CREWGRAPH_LLM", "OPENAI_API_KEY", "OPENAI_BASE_URL", "MODEL", "CREWGRAPH_MODEL"):
        env.pop(name, None)
    return env


def crewgraph(tmp_path: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crewgraph.cli", *args],
        cwd=cwd, env=_env(tmp_path), capture_output=True, text=True, timeout=90,
    )


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One crew project and one flow project, scaffolded by the real command."""
    base = tmp_path_factory.mktemp("scaffolds")
    for kind, name in (("crew", "field notes"), ("flow", "poem flow")):
        classic = ["--classic"] if kind == "crew" else []  # the JSON-first crew: test_json_project_run.py
        proc = crewgraph(base, "create", kind, name, "-q", *classic, cwd=base)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == str(Path(name.replace(" ", "_")))
    return base


def test_flow_layout_is_crewais(made: Path) -> None:
    root = made / "poem_flow"
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    assert files == [
        ".env.example", ".gitignore", "README.md", "pyproject.toml",
        "src/poem_flow/__init__.py", "src/poem_flow/crews/__init__.py",
        "src/poem_flow/crews/poem_crew/__init__.py",
        "src/poem_flow/crews/poem_crew/config/agents.yaml", "src/poem_flow/crews/poem_crew/config/tasks.yaml",
        "src/poem_flow/crews/poem_crew/poem_crew.py", "src/poem_flow/main.py",
        "src/poem_flow/tools/__init__.py", "src/poem_flow/tools/custom_tool.py", "tests/test_flow.py",
    ]
    crew_source = (root / "src/poem_flow/crews/poem_crew/poem_crew.py").read_text()
    assert "from crewgraph.agents.agent_builder.base_agent import BaseAgent" in crew_source
    assert "class PoemFlow(Flow[PoemState]):" in (root / "src/poem_flow/main.py").read_text()
    readme = (root / "README.md").read_text()
    assert "pip install /path/to/crewgraph" in readme and "crewgraph flow kickoff --llm fake" in readme


def test_crew_project_runs_main_py_inputs(made: Path, tmp_path: Path, cli: Any) -> None:
    root = made / "field_notes"
    proc = crewgraph(tmp_path, "run", "--llm", "fake", "--json", cwd=root)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)  # only the answer's JSON on stdout
    assert out["raw"].startswith("(fake answer from crewgraph --llm fake)")
    assert "Running crew 'field_notes' (field_notes.crew:FieldNotes)" in proc.stderr
    assert "inputs: topic='AI agents', current_year=" in proc.stderr  # what main.py's run() passes
    assert (root / "report.md").read_text(encoding="utf-8").strip() == out["raw"]
    # what the run recorded, read by `crewgraph checkpoints show` in this process (same store:
    # the CLI fixture's $CREWGRAPH_STORAGE_DIR is tmp_path/store, as the subprocess's)
    shown = cli("checkpoints", "show", out["run_id"], "--json")
    assert json.loads(shown.stdout)["meta"]["inputs"]["topic"] == "AI agents"

    override = crewgraph(tmp_path, "run", "--llm", "fake", "-q", "--json", "-i", "topic=tides", cwd=root)
    assert override.returncode == 0 and override.stderr == ""
    run_id = json.loads(override.stdout)["run_id"]
    inputs = json.loads(cli("checkpoints", "show", run_id, "--json").stdout)["meta"]["inputs"]
    assert inputs["topic"] == "tides" and inputs["current_year"].isdigit()


def test_crew_project_reads_dotenv(made: Path, tmp_path: Path) -> None:
    root = made / "field_notes"
    (root / ".env").write_text("CREWGRAPH_LLM=fake\n", encoding="utf-8")
    try:
        proc = crewgraph(tmp_path, "run", "-q", cwd=root)
    finally:
        (root / ".env").unlink()
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("(fake answer from crewgraph --llm fake)") and proc.stderr == ""


def test_flow_project_runs_offline(made: Path, tmp_path: Path) -> None:
    root = made / "poem_flow"
    for command in (["flow", "kickoff"], ["run"]):
        proc = crewgraph(tmp_path, *command, "--llm", "fake", cwd=root)
        assert proc.returncode == 0, proc.stderr
        poem = (root / "poem.txt").read_text(encoding="utf-8")
        assert poem.startswith("(fake answer from crewgraph --llm fake) Write a poem")
        assert proc.stdout.strip() == poem  # the flow's result; its prints went to stderr
        assert "Generating poem" in proc.stderr and "✔ write_poem" in proc.stderr
        assert "Running flow 'PoemFlow' (poem_flow.main:kickoff)" in proc.stderr
    quiet = crewgraph(tmp_path, "flow", "kickoff", "--llm", "fake", "-q", cwd=root)
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout.startswith("(fake answer")
    plot = crewgraph(tmp_path, "flow", "plot", "-o", "-", cwd=root)
    assert plot.returncode == 0 and plot.stdout.startswith("digraph") and "generate_poem" in plot.stdout


def test_flow_without_a_model_says_what_is_missing(made: Path, tmp_path: Path) -> None:
    """No --llm, no key: the run fails with one line, not a traceback."""
    proc = crewgraph(tmp_path, "flow", "kickoff", cwd=made / "poem_flow")
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("Error: ") and "No API key" in last and "Traceback" not in proc.stderr


@pytest.mark.parametrize("project", ["field_notes", "poem_flow"])
def test_the_scaffolds_own_tests_pass(made: Path, tmp_path: Path, project: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=made / project, env={**_env(tmp_path), **ONLY_PYTEST}, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout
