"""networkx is in the core (DESIGN.md): ``plan.graph`` and ``run_graph.graph`` are
``networkx.DiGraph``s on a plain install, and code that treats the plan as a networkx DAG works.
The engine never imports it: ``from crewgraph import ...``, a kickoff, a plot and a replay run on
``Digraph`` (networkx's layout), so the first kickoff does not pay networkx's import."""

from __future__ import annotations

import os
import textwrap
import tomllib
from pathlib import Path

from _forkserver import run_python

REPO = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import sys

    from crewgraph import Agent, Crew, Task
    from crewgraph.testing import FakeLLM

    assert "networkx" not in sys.modules, "from crewgraph import ... imported networkx"

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
    from crewgraph.cli import main
    for argv in (["run", "m:build", "-q", "-i", "topic=y"], ["plot", "m:build", "-o", "-"],
                 ["replay", "-t", "two", "m:build", "-q", "-i", "topic=y"]):
        try:
            main(argv)
        except SystemExit as exc:
            assert exc.code in (0, None), (argv, exc.code)
    assert "networkx" not in sys.modules, "a kickoff, plot or replay imported networkx"

    import networkx as nx
    from crewgraph.testing import run_node

    assert isinstance(plan.graph, nx.DiGraph) and nx.is_directed_acyclic_graph(plan.graph)
    order = list(nx.topological_sort(plan.graph))
    step = next(n for n in order if plan.graph.nodes[n]["kind"] == "agent_step")
    result = run_node(plan.graph.nodes[step]["node"], inputs={"topic": "z"})  # the node alone
    assert result.output.raw == "text" and result.output.description == "d z", result
    print("ok")
    """
)


def test_networkx_is_a_core_dependency() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert any(d.startswith("networkx") for d in project["dependencies"])
    assert "networkx" not in project["optional-dependencies"]


def test_the_engine_never_imports_networkx_and_the_view_is_networkx(tmp_path: Path) -> None:
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
    proc = run_python(["-c", SCRIPT], cwd=tmp_path, env=env, timeout=120)  # forked with crewgraph imported
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("ok")
    assert "digraph" in proc.stdout  # the plot's DOT
