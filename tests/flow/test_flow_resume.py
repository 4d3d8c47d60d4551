"""Pause for input and resume in another process; per-method resume after SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import crewgraph
from crewgraph.flow import Flow, listen, start
from crewgraph.flow.human_feedback import PendingRun
from crewgraph.flow.persistence import SQLiteFlowPersistence, persist

APPS = Path(__file__).resolve().parent / "apps"
APP = APPS / "approval_app.py"
REPO_ROOT = Path(crewgraph.__file__).resolve().parents[1]


def _env(tmp: Path, **more: str) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(APPS)]),
        "CREWGRAPH_STORAGE_DIR": str(tmp / "store"),
        "FLOW_LOG": str(tmp / "log.txt"),
        **more,
    }


def _log(tmp: Path) -> list[tuple[int, str]]:
    path = tmp / "log.txt"
    if not path.exists():
        return []
    return [(int(pid), m) for pid, m in (line.split() for line in path.read_text().splitlines())]


def _python(code: str, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_pause_then_resume_in_a_second_process(tmp_path: Path) -> None:
    env = _env(tmp_path)
    first = subprocess.run([sys.executable, str(APP), "pause"], env=env, capture_output=True, text=True, timeout=60)
    assert first.returncode == 0, first.stderr
    run_id, question = first.stdout.strip().split("|")
    assert question == "Publish 'a short post'? (yes/no)"
    assert [m for _, m in _log(tmp_path)] == ["draft", "review"]
    store = SQLiteFlowPersistence(tmp_path / "store" / "flow_states.db")
    record = store.load_run(run_id)
    assert record is not None and record["status"] == "paused"
    assert record["pending"][0]["question"] == question

    # A new process that only knows the run id: the run names its flow class.
    out = _python(f"from crewgraph.flow import Flow; print(Flow.resume({run_id!r}, 'yes'))", env)
    assert out == "published after 1 draft(s)"
    log = _log(tmp_path)
    second = {pid for pid, _ in log[2:]}
    assert len(second) == 1 and second != {log[0][0]}
    # Nothing that completed ran again; the paused method ran again from its start.
    assert [m for _, m in log] == ["draft", "review", "review", "decide", "publish"]
    record = store.load_run(run_id)
    assert record is not None and record["status"] == "completed"
    state = store.load_state(record["flow_uuid"])
    assert state is not None and state["published"] is True and state["drafts"] == 1


def test_the_cli_resumes_a_paused_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from crewgraph.cli.app import app

    env = _env(tmp_path)
    first = subprocess.run([sys.executable, str(APP), "pause"], env=env, capture_output=True, text=True, timeout=60)
    run_id = first.stdout.strip().split("|")[0]
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", env["CREWGRAPH_STORAGE_DIR"])
    monkeypatch.setenv("FLOW_LOG", env["FLOW_LOG"])
    runner = CliRunner()
    listed = runner.invoke(app, ["flows", "list"])
    assert run_id in listed.output and "waiting: review: Publish" in listed.output
    missing = runner.invoke(app, ["flows", "resume", run_id])
    assert missing.exit_code == 1 and "waits for an answer" in missing.output
    assert missing.exception is None or isinstance(missing.exception, SystemExit)
    done = runner.invoke(app, ["flows", "resume", run_id, "--answer", "no"])
    assert done.exit_code == 0, done.output
    assert done.output.strip() == "dropped"
    again = runner.invoke(app, ["flows", "resume", run_id, "--answer", "no"])
    assert again.exit_code == 1 and "already completed" in again.output
    nodb = runner.invoke(app, ["flows", "list", "--db", str(tmp_path / "none.db")])
    assert nodb.exit_code == 1 and "no flow state database" in nodb.output


def test_sigkill_mid_run_resumes_without_rerunning_completed_methods(tmp_path: Path) -> None:
    block = tmp_path / "block"
    block.write_text("x")
    env = _env(tmp_path, FLOW_BLOCK=str(block))
    proc = subprocess.Popen([sys.executable, str(APP), "crash"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    flow_id = proc.stdout.readline().strip()
    deadline = time.monotonic() + 30
    while "slow" not in [m for _, m in _log(tmp_path)]:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline, "the flow never reached 'slow'"
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    block.unlink()

    out = _python(
        "from approval_app import Long\n"
        f"print(Long().kickoff(inputs={{'id': {flow_id!r}}}))",
        env,
    )
    # one/two/three ran once (their state changes too); slow re-ran from its start.
    assert out == "done 4 total=11111"
    assert [m for _, m in _log(tmp_path)] == ["one", "two", "three", "slow", "slow", "five"]
    # A completed run kicked off again with its id is a new run on the restored state (CrewAI).
    again = _python(
        "from approval_app import Long\n"
        f"print(Long().kickoff(inputs={{'id': {flow_id!r}}}))",
        env,
    )
    assert again == "done 4 total=22222"


def test_resume_in_process_with_several_pauses_and_errors(storage_dir: Path) -> None:
    @persist()
    class Two(Flow[dict]):
        input_provider = "persisted"

        @start()
        def name(self) -> str:
            return self.ask("Name?")

        @listen(name)
        def both(self, name: str) -> str:
            city = self.ask("City?")
            color = self.ask("Color?")
            return f"{name} from {city} likes {color}"

    flow = Two()
    first = flow.kickoff()
    assert isinstance(first, PendingRun) and first.question == "Name?" and first.pending
    assert "paused" in str(first)
    with pytest.raises(ValueError, match="waits for an answer"):
        flow.resume(first.run_id)
    second = flow.resume(first.run_id, "Ada")
    assert isinstance(second, PendingRun) and second.question == "City?" and second.run_id == first.run_id
    third = Two.resume(first.run_id, "London")
    assert isinstance(third, PendingRun) and third.question == "Color?"
    assert Two().resume(first.run_id, "green") == "Ada from London likes green"
    with pytest.raises(ValueError, match="already completed"):
        Two.resume(first.run_id, "x")
    with pytest.raises(ValueError, match="no flow run 'nope'"):
        Two.resume("nope", "x")


def test_a_class_defined_in_a_function_needs_an_instance_to_resume(storage_dir: Path) -> None:
    @persist()
    class Local(Flow[dict]):
        input_provider = "persisted"

        @start()
        def a(self) -> str:
            return self.ask("?")

    pending = Local().kickoff()
    with pytest.raises(ValueError, match="defined inside a function"):
        Flow.resume(pending.run_id, "x")
    assert Local().resume(pending.run_id, "ok") == "ok"


def test_checkpoint_true_persists_and_journals(storage_dir: Path) -> None:
    calls: list[str] = []

    class C(Flow[dict]):
        checkpoint = True

        @start()
        def a(self) -> int:
            calls.append("a")
            return 1

        @listen(a)
        def b(self, n: int) -> Any:
            calls.append("b")
            if self.state.get("fail", True):
                raise RuntimeError("b broke")
            return n + 1

    flow = C()
    with pytest.raises(RuntimeError, match="b broke"):
        flow.kickoff()
    # A failed run resumes too: 'a' is restored from the journal, only 'b' runs again.
    assert C().kickoff(inputs={"id": flow.flow_id, "fail": False}) == 2
    assert calls == ["a", "b", "b"]
