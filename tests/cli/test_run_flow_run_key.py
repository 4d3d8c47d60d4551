"""`crewgraph run MODULE:FlowClass --run-key KEY` in real subprocesses: the second run returns
the first one's recorded output and runs no method (issue 26, item 2)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

FLOW = '''
from pathlib import Path
from crewgraph.flow import Flow, persist, start
from crewgraph.flow.persistence import SQLiteFlowPersistence

@persist(SQLiteFlowPersistence(Path(__file__).with_name("flows.db")))
class Keyed(Flow[dict]):
    @start()
    def a(self) -> str:
        with open(Path(__file__).with_name("calls.txt"), "a") as fh:
            fh.write(f"a {self.state.get('topic')}\\n")
        return f"done {self.state.get('topic')}"
'''


def test_crewgraph_run_run_key_on_a_flow(tmp_path: Path) -> None:
    (tmp_path / "keyedflow.py").write_text(FLOW, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{tmp_path}", "CREWGRAPH_STORAGE_DIR": str(tmp_path / "s")}
    cli = [sys.executable, "-m", "crewgraph.cli", "run", "keyedflow:Keyed", "-q", "-i", "topic=t1", "--run-key", "k1"]
    outputs = []
    for _ in range(2):
        done = subprocess.run(cli, env=env, capture_output=True, text=True, timeout=90, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout.strip())
    assert outputs == ["done t1", "done t1"]
    assert (tmp_path / "calls.txt").read_text().splitlines() == ["a t1"]
