"""The core runs without networkx (an extra): kickoffs, plots, exports, replay and a run's
graph work on ``Digraph``; only the networkx view (``.graph``) needs it, and says so."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import sys
    sys.modules["networkx"] = None  # `import networkx` raises ImportError, as when not installed

    from crewgraph import Agent, Crew, Task
    from crewgraph.errors import MissingExtraError
    from crewgraph.testing import FakeLLM

    def build():
        a = Agent(role="Writer", goal="g", backstory="b", llm=FakeLLM(default="text"))
        return Crew(name="nx_free", agents=[a], tasks=[
            Task(name="one", description="d {topic}", expected_output="e", agent=a),
            Task(name="two", description="d", expected_output="e", agent=a),
        ])

    crew = build()
    out = crew.kickoff(inputs={"topic": "x"})
    assert out.raw == "text"
    plan = crew.compile()
    assert plan.to_dot().startswith("digraph") and plan.to_json()["nodes"]
    try:
        plan.graph
    except MissingExtraError as exc:
        assert "crewgraph[networkx]" in str(exc), exc
    else:
        raise AssertionError("plan.graph built a networkx graph without networkx")

    from crewgraph.cli import main
    for argv in (["run", "m:build", "-q", "-i", "topic=y"], ["plot", "m:build", "-o", "-"],
                 ["replay", "-t", "two", "m:build", "-q", "-i", "topic=y"]):
        try:
            main(argv)
        except SystemExit as exc:
            assert exc.code in (0, None), (argv, exc.code)
    assert "networkx" not in {m.split(".")[0] for m, v in sys.modules.items() if v is not None}
    print("ok")
    """
)


def test_core_paths_without_networkx(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        "from crewgraph import Agent, Crew, Task\nfrom crewgraph.testing import FakeLLM\n\n"
        "def build():\n"
        "    a = Agent(role='Writer', goal='g', backstory='b', llm=FakeLLM(default='text'))\n"
        "    return Crew(name='nx_free', agents=[a], tasks=[\n"
        "        Task(name='one', description='d {topic}', expected_output='e', agent=a),\n"
        "        Task(name='two', description='d', expected_output='e', agent=a)])\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(tmp_path)]),
           "CREWGRAPH_STORAGE_DIR": str(tmp_path / "store")}
    env.pop("CREWGRAPH_LLM", None)
    proc = subprocess.run([sys.executable, "-c", SCRIPT], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("ok")
    assert "digraph" in proc.stdout  # the plot's DOT
