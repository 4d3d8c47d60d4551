"""The CrewAI ports (examples/crewai_ports/) run offline, as written: CrewAI code with only
its imports renamed, each on the demo model (CREWGRAPH_LLM=fake), in its own process.

tests/compat/test_unmodified_projects.py runs the same files with their CrewAI imports.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _ports import PORTS, PROJECTS, SCRIPTS, copy_port, offline_env, run

DEMO = "(fake answer from crewgraph --llm fake)"


def test_every_port_is_run_here() -> None:
    assert SCRIPTS == ["custom_tool_crew.py", "hierarchical_crew.py", "knowledge_crew.py", "router_flow.py"]
    assert PROJECTS == ["research_crew"]


def test_the_ports_run_offline(tmp_path: Path) -> None:
    env = offline_env(tmp_path, CREWGRAPH_LLM="fake")

    def script(name: str) -> tuple[str, object]:
        path = copy_port(name, tmp_path / "scripts", crewai=False)
        return name, run([str(path)], path.parent, env)

    with ThreadPoolExecutor(2) as pool:
        done = dict(pool.map(script, SCRIPTS))
    for name, proc in done.items():
        assert proc.returncode == 0, f"{name}:\n{proc.stderr[-3000:]}"  # type: ignore[attr-defined]
    out = {name: proc.stdout.strip().splitlines()[-1] for name, proc in done.items()}  # type: ignore[attr-defined]
    assert out["custom_tool_crew.py"].startswith(f"{DEMO} Review the draft titled Tides of March")
    tools = done["custom_tool_crew.py"].stderr  # type: ignore[attr-defined]  # verbose=True prints there
    assert "Word counter" in tools and "2 words" in tools and "DEMO TEXT" in tools  # each tool called once
    assert out["hierarchical_crew.py"].startswith(f"{DEMO} Write a four-paragraph article about tide pools")
    assert out["knowledge_crew.py"].startswith(f"{DEMO} Answer the following questions about the user")
    assert out["router_flow.py"] == "published after 2 rounds; ideas: demo ideas"  # the loop ran twice


def test_the_research_project_runs_with_crewgraph_run(tmp_path: Path) -> None:
    root = copy_port("research_crew", tmp_path, crewai=False)
    proc = run(["-m", "crewgraph.cli", "run", "--llm", "fake", "--json", "-q"], root, offline_env(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout)
    assert result["raw"].startswith(DEMO)
    report = json.loads((root / "report.md").read_text(encoding="utf-8"))
    assert report["title"] and report["summary"] and report["key_points"]  # filled from Report's schema
    assert [t["name"] for t in result["tasks"]] == ["research_task", "reporting_task"]
    assert PORTS.joinpath("research_crew", "report.md").exists() is False  # the copy ran, not the source
