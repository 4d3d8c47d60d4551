"""Ctrl-C during `crewgraph run` (a real SIGINT to a real subprocess) ends with the resume
hint a failure prints, and the hint works."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SLOW_CREW = """
from crewgraph import Agent, Crew, Task
from crewgraph.testing import FakeLLM

fast = Agent(role="Fast", goal="g", backstory="b", llm=FakeLLM(default="first done"))
slow = Agent(role="Slow", goal="g", backstory="b", llm=FakeLLM(default="never", latency=60))
crew = Crew(name="slow_crew", agents=[fast, slow], tasks=[
    Task(name="first", description="one", expected_output="x", agent=fast),
    Task(name="second", description="two", expected_output="x", agent=slow),
])
"""


def _ctrl_c_as_at_a_terminal() -> None:
    """SIGINT's default action in the child, as a terminal's foreground job has it.

    A suite started in the background by a non-interactive shell runs with SIGINT ignored,
    and a child inherits that (POSIX; Python then installs no KeyboardInterrupt handler), so
    the Ctrl-C below would be ignored and the run would go on to its 60 s model call.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_prints_the_resume_hint(tmp_path: Path) -> None:
    (tmp_path / "slow_mod.py").write_text(SLOW_CREW, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO), "CREWGRAPH_STORAGE_DIR": str(tmp_path / "store")}
    env.pop("CREWGRAPH_LLM", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "crewgraph.cli", "run", "slow_mod:crew"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_ctrl_c_as_at_a_terminal,
    )
    lines: list[str] = []
    first_done = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if "✔ first" in line:
                first_done.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert first_done.wait(60), "".join(lines)
        time.sleep(0.3)  # the second task's model call is under way
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(5)
    stderr = "".join(lines)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    found = re.search(r"Error: interrupted \[run (\w+) is checkpointed: resume it with "
                      r"`crewgraph checkpoints resume (\w+)`\]", stderr)
    assert found and found.group(1) == found.group(2), stderr

    resumed = subprocess.run(
        [sys.executable, "-m", "crewgraph.cli", "checkpoints", "resume", found.group(1), "--llm", "fake"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "↺ first" in resumed.stderr and "✔ second" in resumed.stderr
    assert resumed.stdout.startswith("(fake answer from crewgraph --llm fake)")
