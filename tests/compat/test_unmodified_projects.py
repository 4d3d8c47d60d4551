"""Unmodified CrewAI code runs: ``python -m crewgraph.compat``, the one-line opt-in, and
``crewgraph run`` in a CrewAI project folder resolve ``crewai``/``crewai_tools`` to crewgraph.

The code is the CrewAI original of each port in examples/crewai_ports/ (its imports
turned back into CrewAI's), run in its own process on the demo model.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# The helpers that run the ports live with the ports' own tests (tests/examples/_ports.py).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

from _ports import PORTS, SCRIPTS, copy_port, offline_env, run, to_crewai

DEMO = "(fake answer from crewgraph --llm fake)"


def test_the_crewai_originals_are_crewai_code() -> None:
    source = to_crewai((PORTS / "research_crew" / "src" / "research_crew" / "crew.py").read_text())
    assert "from crewai import Agent, Crew, Process, Task" in source
    assert "from crewai_tools import DirectoryReadTool, FileReadTool" in source
    assert "crewgraph" not in source


def test_python_m_crewgraph_compat_runs_each_original(tmp_path: Path) -> None:
    env = offline_env(tmp_path, CREWGRAPH_LLM="fake")

    def script(name: str) -> tuple[str, object]:
        path = copy_port(name, tmp_path / "originals", crewai=True)
        return name, run(["-m", "crewgraph.compat", str(path), "--flag"], path.parent, env)

    with ThreadPoolExecutor(2) as pool:
        done = dict(pool.map(script, SCRIPTS))
    for name, proc in done.items():
        assert proc.returncode == 0, f"{name}:\n{proc.stderr[-3000:]}"  # type: ignore[attr-defined]
        last = proc.stdout.strip().splitlines()[-1]  # type: ignore[attr-defined]
        assert last.startswith(DEMO) or last.startswith("published after"), (name, last)


def test_crewgraph_run_in_a_crewai_project_folder(tmp_path: Path) -> None:
    root = copy_port("research_crew", tmp_path, crewai=True)
    proc = run(["-m", "crewgraph.cli", "run", "--llm", "fake", "--json", "-q"], root, offline_env(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout)["raw"].startswith(DEMO)
    assert json.loads((root / "report.md").read_text())["key_points"]


ONE_LINE = """\
import crewgraph.compat  # noqa: F401
import sys
import warnings

import crewai
import crewai_tools
from crewai import Agent, Crew, Task
from crewai.events import crewai_event_bus
from crewai.tools import BaseTool
from crewai.utilities.events import crewai_event_bus as old_bus
import crewgraph
import crewgraph.toolkit

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    from crewai_tools import BaseTool as OldBaseTool
print(Agent is crewgraph.Agent, OldBaseTool is BaseTool, crewai_tools.FileReadTool is crewgraph.toolkit.FileReadTool)
from crewgraph.events import crewgraph_event_bus
print(crewai_event_bus is old_bus is crewgraph_event_bus)
import os.path
import crewai.utilities
print(os.path.dirname(crewai.__file__) == os.path.dirname(crewgraph.__file__),
      crewai_tools.__file__ == crewgraph.toolkit.__file__, crewai.utilities.__file__.endswith("__init__.py"))
print(caught[0].category.__name__, caught[0].message)
try:
    import crewai.no_such_module
except ModuleNotFoundError as exc:
    print("missing:", exc)
"""


def test_the_one_line_opt_in(tmp_path: Path) -> None:
    (tmp_path / "script.py").write_text(ONE_LINE, encoding="utf-8")
    proc = run(["script.py"], tmp_path, offline_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    same, bus, files, warned, missing = proc.stdout.splitlines()
    assert same == "True True True" and bus == "True"
    assert files == "True True True"  # `os.path.dirname(crewai.__file__)` works as on CrewAI
    assert warned == ("DeprecationWarning `from crewai_tools import BaseTool` is an old path: import BaseTool "
                      "from crewai.tools (crewgraph: crewgraph.tools)")
    assert missing == "missing: No module named 'crewai.no_such_module'"


def test_a_real_crewai_is_not_shadowed(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "crewai").mkdir(parents=True)
    (site / "crewai" / "__init__.py").write_text("WHO = 'the real crewai'\n", encoding="utf-8")
    (tmp_path / "script.py").write_text("import crewai\nprint(crewai.WHO)\n", encoding="utf-8")
    env = offline_env(tmp_path)
    env["PYTHONPATH"] = f"{env['PYTHONPATH']}:{site}"
    proc = run(["-m", "crewgraph.compat", "script.py"], tmp_path, env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "the real crewai\n"
    assert "RealCrewAIWarning: the real crewai is installed" in proc.stderr
    assert "`import crewai` gets it, not crewgraph" in proc.stderr
    (tmp_path / "crew_mod.py").write_text(
        "import crewai\nfrom crewgraph import Agent, Crew, Task\n"
        "a = Agent(role='r', goal='g', backstory='b')\n"
        "crew = Crew(agents=[a], tasks=[Task(description='d', expected_output='e', agent=a)])\n",
        encoding="utf-8",
    )
    cli = run(["-m", "crewgraph.cli", "run", "crew_mod.py:crew", "--llm", "fake", "-q"], tmp_path, env)
    assert cli.returncode == 0, cli.stderr
    assert "note: this project imports the real crewai" in cli.stderr


def test_usage_errors(tmp_path: Path) -> None:
    env = offline_env(tmp_path)
    none = run(["-m", "crewgraph.compat"], tmp_path, env)
    assert none.returncode == 2 and "usage: python -m crewgraph.compat SCRIPT.py" in none.stderr
    missing = run(["-m", "crewgraph.compat", "nope.py"], tmp_path, env)
    assert missing.returncode == 2 and "no such file: nope.py" in missing.stderr
