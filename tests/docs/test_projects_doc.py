"""docs/projects.md's @CrewBase example is a real project: written out with its YAML, it runs."""

from __future__ import annotations

import os
import re
from pathlib import Path

from _doc_server import ROOT, answer
from _forkserver import run_python

from crewgraph.testing import OpenAICompatServer

DOC = ROOT / "docs" / "projects.md"


def test_the_research_crew_example_runs_as_a_project(tmp_path: Path) -> None:
    text = DOC.read_text(encoding="utf-8")
    [code] = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "class ResearchCrew" in b]
    [yaml_block] = [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if "research_task:" in b]
    project = tmp_path / "src" / "research"
    (project / "config").mkdir(parents=True)
    (project / "crew.py").write_text(code, encoding="utf-8")
    # The YAML block holds both files, each after its "# src/research/config/<file>" line.
    for name, body in re.findall(r"# src/research/config/(\S+)\n(.*?)(?=\n# src/|\Z)", yaml_block, re.S):
        (project / "config" / name).write_text(body, encoding="utf-8")
    assert sorted(p.name for p in (project / "config").iterdir()) == ["agents.yaml", "tasks.yaml"]
    with OpenAICompatServer(default=answer) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CREWGRAPH_"))}
        env.update(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="sk-local-test",
                   PYTHONPATH=os.pathsep.join([str(ROOT), str(project.parent)]))
        proc = run_python(["-c", "import research.crew"], cwd=tmp_path, env=env, timeout=120)  # forked
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "finished: write_task" in proc.stdout  # the @callback from tasks.yaml ran
