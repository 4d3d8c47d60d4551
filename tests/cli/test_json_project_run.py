"""`crewgraph run` in a CrewAI JSON-first project (crew.jsonc + agents/), in real subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# The project's own tests run with only pytest, as in a user's project venv: none of the
# plugins this venv has (langsmith's, anyio, xdist...: ~0.5 s of CPU to load) nor this repo's.
ONLY_PYTEST = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}

AGENT = """\
{
  "role": "{topic} Researcher",
  "goal": "Find facts about {topic}",
  "backstory": "Careful.",
  "llm": "openai/gpt-4o-mini",
  "settings": {"verbose": false},
}
"""

CREW = """\
{
  // tasks run in order
  "agents": ["researcher"],
  "tasks": [
    {"name": "research_task", "description": "Research {topic} in {year}", "expected_output": "notes",
     "agent": "researcher", "output_file": "output/notes.md"},
  ],
  "inputs": {"topic": "AI agents"},
}
"""


def make(root: Path, crew: str = CREW) -> Path:
    (root / "agents").mkdir(parents=True)
    (root / "agents" / "researcher.jsonc").write_text(AGENT, encoding="utf-8")
    (root / "crew.jsonc").write_text(textwrap.dedent(crew), encoding="utf-8")
    return root


def env_for(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "CREWGRAPH_STORAGE_DIR": str(tmp_path / "store")}
    env.pop("CREWGRAPH_LLM", None)
    return env


def run(root: Path, *args: str, stdin: int | None = subprocess.DEVNULL) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crewgraph.cli", "run", *args],
        cwd=root, env=env_for(root.parent), stdin=stdin, capture_output=True, text=True, timeout=90,
    )


def test_run_with_defaults_and_overrides(tmp_path: Path) -> None:
    root = make(tmp_path / "proj")
    proc = run(root, "--llm", "fake", "-i", "year=2026")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("(fake answer from crewgraph --llm fake) Research AI agents in 2026")
    assert "inputs: topic='AI agents', year='2026'" in proc.stderr and "✔ research_task" in proc.stderr
    assert (root / "output" / "notes.md").is_file()
    proc = run(root, "--llm", "fake", "-q", "-i", "topic=tides", "-i", "year=1999")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("Research tides in 1999")


def test_missing_input_without_a_terminal_is_one_clear_error(tmp_path: Path) -> None:
    proc = run(make(tmp_path / "proj"), "--llm", "fake", "-q")
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        'Error: crew.jsonc: no value for {year}: add it to "inputs" in crew.jsonc or pass -i year=VALUE'
    )
    assert "Traceback" not in proc.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_missing_input_is_asked_for_on_a_terminal(tmp_path: Path) -> None:
    import pty

    root = make(tmp_path / "proj")
    primary, secondary = pty.openpty()
    try:
        os.write(primary, b"1850\n")
        proc = run(root, "--llm", "fake", "-q", stdin=secondary)
    finally:
        os.close(secondary)
        os.close(primary)
    assert proc.returncode == 0, proc.stderr
    assert "Enter a value for {year}: " in proc.stderr
    assert proc.stdout.strip().endswith("Research AI agents in 1850")


def test_bad_definition_is_one_line_at_the_cli(tmp_path: Path) -> None:
    root = make(tmp_path / "proj", CREW.replace('"agent": "researcher"', '"agent": "reseacher"'))
    proc = run(root, "--llm", "fake", "-i", "year=1")
    assert proc.returncode == 1
    assert proc.stderr.startswith("Error: crew.jsonc:6: task 'research_task', field 'agent': unknown agent 'reseacher'")
    assert "did you mean 'researcher'?" in proc.stderr and "Traceback" not in proc.stderr


def test_dotenv_is_read(tmp_path: Path) -> None:
    """The project's .env is loaded first, as `crewai run` does (here it picks the offline model)."""
    root = make(tmp_path / "proj")
    (root / ".env").write_text("CREWGRAPH_LLM=fake\n", encoding="utf-8")
    proc = run(root, "-q", "-i", "year=3")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("(fake answer from crewgraph --llm fake)")


def test_definition_named_in_pyproject_and_plot(tmp_path: Path) -> None:
    """CrewAI's `[tool.crewai] definition` names the file; `crewgraph plot` takes the project too."""
    root = make(tmp_path / "proj")
    (root / "crew.jsonc").rename(root / "team.jsonc")
    (root / "pyproject.toml").write_text('[tool.crewai]\ntype = "crew"\ndefinition = "team.jsonc"\n', encoding="utf-8")
    proc = run(root, "--llm", "fake", "-q", "-i", "year=4")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("Research AI agents in 4")
    plot = subprocess.run(
        [sys.executable, "-m", "crewgraph.cli", "plot", "-o", "-"],
        cwd=root, env=env_for(tmp_path), capture_output=True, text=True, timeout=90,
    )
    assert plot.returncode == 0, plot.stderr
    assert plot.stdout.startswith("digraph") and "research_task" in plot.stdout


def test_explicit_definition_file(tmp_path: Path) -> None:
    root = make(tmp_path / "proj")
    (root / "crew.jsonc").rename(root / "other.jsonc")
    proc = run(root, "other.jsonc", "--llm", "fake", "-q", "-i", "year=2")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("Research AI agents in 2")


def test_create_crew_writes_the_json_first_layout_and_it_runs(tmp_path: Path) -> None:
    """`crewgraph create crew` writes CrewAI's default layout; it runs offline with --llm fake,
    and its own FakeLLM test passes (all in real subprocesses)."""
    env = env_for(tmp_path)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "MODEL", "CREWGRAPH_MODEL"):
        env.pop(name, None)

    def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "crewgraph.cli", *args],
            cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=90,
        )

    made = cli("create", "crew", "field notes", "-q", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    root = tmp_path / "field_notes"
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    assert files == [
        ".env", ".gitignore", "README.md", "agents/reporting_analyst.jsonc", "agents/researcher.jsonc",
        "crew.jsonc", "knowledge/README.md", "pyproject.toml", "tests/test_crew.py", "tools/custom_tool.py",
    ]
    proc = cli("run", "--llm", "fake", "-i", "topic=tides", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("(fake answer from crewgraph --llm fake) Review the context")
    assert "inputs: topic='tides'" in proc.stderr and "✔ reporting_task" in proc.stderr
    assert (root / "output" / "report.md").read_text(encoding="utf-8").strip() == proc.stdout.strip()
    no_model = cli("run", "-q", cwd=root)  # no key, no --llm: one line saying what is missing
    assert no_model.returncode == 1 and "Traceback" not in no_model.stderr
    assert no_model.stderr.startswith("Error: ") and "No API key" in no_model.stderr
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=root, env={**env, **ONLY_PYTEST}, capture_output=True, text=True, timeout=120,
    )
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "1 passed" in tests.stdout
    classic = cli("create", "crew", "old style", "--classic", "-q", cwd=tmp_path)
    assert classic.returncode == 0, classic.stderr
    assert (tmp_path / "old_style" / "src" / "old_style" / "crew.py").is_file()
