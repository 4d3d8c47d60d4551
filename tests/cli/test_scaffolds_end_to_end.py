"""Each scaffold works end to end, in subprocesses as a user would run it: created, installed
with pip next to crewgraph, extended with its own custom tool as its README says, run offline,
tested with its own test and plotted.

The venv is a bare one whose ``.pth`` sees crewgraph and the shared site-packages, and pip
installs the project with ``--no-deps --no-build-isolation``: a real pip and a real editable
install, without downloading anything.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TOOL_CALLED = "my_custom_tool() tool"  # its progress line: the demo model calls every tool once
DEMO = "(fake answer from crewgraph --llm fake)"


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120)
    site = next((root / "lib").glob("python3*/site-packages"))
    (site / "crewgraph_dev.pth").write_text(f"{REPO}\n{sysconfig.get_paths()['purelib']}\n", encoding="utf-8")
    return root


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "OPENAI_API_KEY", "OPENAI_BASE_URL", "MODEL", "CREWGRAPH_MODEL", "CREWGRAPH_LLM")}
    env.update(CREWGRAPH_STORAGE_DIR=str(home / "store"), NO_COLOR="1", PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{' '.join(args)}:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc


def _add_tool(kind: str, root: Path, package: str) -> None:
    """What each README says to do to give an agent the project's own tool."""
    readme = (root / "README.md").read_text()
    said = (['"tools": ["custom:custom_tool"]'] if kind == "json"
            else [f"from {package}.tools.custom_tool import MyCustomTool", "tools=[MyCustomTool()])"])
    assert all(s in readme for s in said), f"{kind}: the README does not say how to wire the tool"
    if kind == "json":
        agent = root / "agents" / "researcher.jsonc"
        agent.write_text(agent.read_text().replace('"tools": []', '"tools": ["custom:custom_tool"]'))
        return
    crew_py = root / "src" / package / ("crew.py" if kind == "classic" else "crews/poem_crew/poem_crew.py")
    text = crew_py.read_text()
    text = text.replace("from crewgraph import Agent", f"from {package}.tools.custom_tool import MyCustomTool\nfrom crewgraph import Agent", 1)
    text, n = re.subn(r'Agent\(config=self\.agents_config\["(\w+)"\]\)',
                      r'Agent(config=self.agents_config["\1"], tools=[MyCustomTool()])', text, count=1)
    assert n == 1, crew_py
    crew_py.write_text(text)


KINDS = ("json", "classic", "flow")


def _create(kind: str, venv: Path, home: Path) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    package = f"{kind}_demo"
    create = {"json": ["crew", package], "classic": ["crew", package, "--classic"], "flow": ["flow", package]}[kind]
    _run([str(venv / "bin" / "python"), "-m", "crewgraph.cli", "create", *create, "-q"], home, _env(home))
    return home / package


@pytest.fixture(scope="module")
def projects(venv: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The three scaffolds, created by the CLI, installed by one pip run (editable, against the
    environment crewgraph is in: no download, no build isolation), and extended with their
    custom tool as their READMEs say."""
    base = tmp_path_factory.mktemp("scaffolds")
    with ThreadPoolExecutor(3) as pool:
        roots = dict(zip(KINDS, pool.map(lambda k: _create(k, venv, base / k), KINDS), strict=True))
    py = str(venv / "bin" / "python")
    editable = [arg for kind in KINDS for arg in ("-e", str(roots[kind]))]
    # `python -m pip` of the venv (pip comes through the .pth, like crewgraph's other dependencies):
    # one pip process, where `pip --python VENV` starts pip again under the venv's interpreter
    _run([py, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", *editable], base, _env(base))
    # the packaged scaffolds are installed: importable from anywhere (the JSON one is no package)
    _run([py, "-c", "import classic_demo.main, flow_demo.main"], base.parent, _env(base))
    for kind, root in roots.items():
        _add_tool(kind, root, f"{kind}_demo")
    return roots


def _use(kind: str, root: Path, venv: Path) -> dict[str, str]:
    py = str(venv / "bin" / "python")
    env = _env(root.parent)
    command = ["flow", "kickoff"] if kind == "flow" else ["run"]
    ran = _run([py, "-m", "crewgraph.cli", *command, "--llm", "fake"], root, env)
    # the project's own test, with only pytest, as in a user's project venv (not this repo's plugins)
    tested = _run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider"], root, {**env, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    plotted = _run([py, "-m", "crewgraph.cli", "plot", "-o", "plan.dot"], root, env)
    return {"stdout": ran.stdout, "stderr": ran.stderr, "tests": tested.stdout,
            "plot": (root / "plan.dot").read_text(), "plotted": plotted.stdout}


@pytest.mark.timeout(400)  # ~14 subprocesses (one pip install, three pytest runs) on a loaded machine
def test_each_scaffold_installs_extends_runs_tests_and_plots(venv: Path, projects: dict[str, Path]) -> None:
    with ThreadPoolExecutor(2) as pool:
        done = dict(zip(KINDS, pool.map(lambda k: _use(k, projects[k], venv), KINDS), strict=True))
    for kind, out in done.items():
        assert TOOL_CALLED in out["stderr"], f"{kind}: the custom tool was not called\n{out['stderr'][-2000:]}"
        assert re.search(r"\b\d+ passed\b", out["tests"]), (kind, out["tests"])
        assert out["plot"].startswith("digraph"), kind
    assert done["json"]["stdout"].startswith(DEMO) and done["classic"]["stdout"].startswith(DEMO)
    assert "my_custom_tool" in done["classic"]["plot"]  # the plan shows the tool the agent may call
