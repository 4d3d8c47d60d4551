"""A run that checkpoints nothing never imports ``crewgraph.checkpoint`` (issue 25: its store,
leases and sqlite were ~0.1 s of the first kickoff, whose goal is 0.3 s). A fresh interpreter
runs a crew and a flow with the fake model and looks at ``sys.modules``; then a checkpointed
kickoff in the same process still checkpoints (the lazy path did not break the other)."""

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

    from crewgraph import Agent, Crew, Task
    from crewgraph.flow import Flow, listen, start
    from crewgraph.testing import FakeLLM

    def crew(**kw):
        a = Agent(role="Writer of {topic}", goal="g", backstory="b", llm=FakeLLM(default="text"))
        return Crew(agents=[a], tasks=[Task(description="d {topic}", expected_output="e", agent=a)], **kw)

    class Two(Flow):
        @start()
        def first(self):
            return crew().kickoff(inputs={"topic": "flows"}).raw

        @listen(first)
        def second(self, text):
            return text + "!"

    assert crew().kickoff(inputs={"topic": "cats"}).raw == "text"
    assert Two().kickoff() == "text!"
    loaded = sorted(m for m in sys.modules if m.startswith("crewgraph.checkpoint"))
    assert not loaded, f"a run without checkpoints imported {loaded}"

    from crewgraph.checkpoint import CheckpointConfig, SQLiteCheckpointStore

    out = crew(checkpoint=CheckpointConfig(path=sys.argv[1])).kickoff(inputs={"topic": "dogs"})
    runs = SQLiteCheckpointStore(sys.argv[1]).list_runs()
    assert [r.status for r in runs] == ["completed"] and out.raw == "text", runs
    print("ok")
    """
)


def test_a_run_without_checkpoints_does_not_import_the_checkpoint_package(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "CREWGRAPH_STORAGE_DIR": str(tmp_path)}
    env.pop("CREWGRAPH_LLM", None)
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "cp.db")], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("ok")
