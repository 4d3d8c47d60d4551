"""Leases and run keys on persisted flow runs, with real processes (issue 26, items 1-2).

Two processes answering one paused flow at the same instant: the method after the answer
runs once, the other gets RunLeasedError naming the holder (or, waiting, finds the run
done). A flow run whose process was SIGKILLed is taken over at once and, re-issued by its
run key, finishes; re-issued again it returns the recorded output, running nothing.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from _forkserver import ForkedProcess, run_python, start_python
from _processes import stop_outside_a_write

import crewgraph
from crewgraph.checkpoint.lease import RunLeasedError
from crewgraph.errors import CheckpointError
from crewgraph.flow import Flow, listen, persist, start
from crewgraph.flow.persistence import SQLiteFlowPersistence

APP = Path(__file__).resolve().parent / "apps" / "lease_flow_app.py"
REPO_ROOT = Path(crewgraph.__file__).resolve().parents[1]
TRIALS = 3


def _env(**more: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": f"{REPO_ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    env.pop("CREWGRAPH_LEASE_WAIT", None)
    return {**env, **more}


def _run(db: Path, log: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = run_python([str(APP), str(db), str(log), *args], env=env or _env(), timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def _reviews(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if " review " in line] if log.exists() else []


def _wait_until_ready(proc: ForkedProcess, timeout: float = 60) -> None:
    """Until the app printed its "ready" line (it then waits for the go file)."""
    deadline = time.monotonic() + timeout
    while proc.output()[0].splitlines()[:1] != ["ready"]:
        assert proc.poll() is None, proc.output()
        assert time.monotonic() < deadline, f"no ready line within {timeout} s: {proc.output()}"
        time.sleep(0.01)


def _race(tmp_path: Path, trial: int, wait: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Two processes answer one paused run at the same instant; (their outcomes, review lines)."""
    db, log = tmp_path / f"flows{trial}.db", tmp_path / f"log{trial}.txt"
    run_id = _run(db, log, "start")
    env = _env(CREWGRAPH_LEASE_WAIT=wait)
    procs = [start_python([str(APP), str(db), str(log), "answer", run_id, f"yes{i}"], env=env,
                          output=tmp_path / f"answer{trial}-{i}") for i in (0, 1)]
    try:
        for proc in procs:
            _wait_until_ready(proc)
        Path(f"{log}.go").write_text("go")
        outs = []
        for proc in procs:
            proc.wait(timeout=60)
            out, err = proc.output()
            assert proc.returncode == 0, err
            outs.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return outs, _reviews(log)


@pytest.mark.parametrize("trial", range(TRIALS))
def test_two_processes_answering_one_paused_flow_run_the_next_method_once(tmp_path: Path, trial: int) -> None:
    outs, reviews = _race(tmp_path, trial, "0")
    assert len(reviews) == 1, reviews
    won = [o for o in outs if "result" in o]
    lost = [o for o in outs if "error" in o]
    assert len(won) == 1 and won[0]["result"] == reviews[0].split()[-1].replace("yes", "reviewed yes")
    assert len(lost) == 1
    # Refused by the lease (naming the holder's pid) or, when it came after, by the finished run.
    assert (lost[0]["error"] == "RunLeasedError" and f"pid {reviews[0].split()[0]}" in lost[0]["message"]) or \
        "already completed" in lost[0]["message"], lost


def test_a_waiting_answerer_finds_the_run_done_instead_of_running_it_again(tmp_path: Path) -> None:
    outs, reviews = _race(tmp_path, 0, "20")
    assert len(reviews) == 1, reviews
    assert sorted("result" in o for o in outs) == [False, True]
    assert any("already completed" in str(o.get("message")) for o in outs), outs


def test_a_killed_keyed_flow_is_taken_over_then_returns_its_recorded_output(tmp_path: Path) -> None:
    db, log = tmp_path / "flows.db", tmp_path / "log.txt"
    victim = start_python([str(APP), str(db), str(log), "keyed", "nightly", "60"], env=_env(),
                          output=tmp_path / "victim")
    try:
        deadline = time.monotonic() + 30
        while not _reviews(log) and time.monotonic() < deadline and victim.poll() is None:
            time.sleep(0.02)
        assert _reviews(log), "the victim never reached review"
        # While it lives, a second kickoff with the key is refused, naming it.
        second = json.loads(_run(db, log, "keyed", "nightly", "0"))
        assert second["error"] == "RunLeasedError" and f"pid {victim.pid}" in second["message"]
    finally:
        victim.send_signal(signal.SIGKILL)
        victim.wait()
    resumed = json.loads(_run(db, log, "keyed", "nightly", "0"))  # the dead holder's lease is taken over at once
    assert resumed == {"result": "reviewed yes"}
    assert len(_reviews(log)) == 2  # the interrupted method, once more; draft was journaled
    again = json.loads(_run(db, log, "keyed", "nightly", "0"))
    assert again == {"result": "reviewed yes"} and len(_reviews(log)) == 2  # nothing ran


def test_run_key_in_process(tmp_path: Path) -> None:
    calls: list[str] = []

    @persist(SQLiteFlowPersistence(tmp_path / "f.db"))
    class Keyed(Flow[dict]):
        @start()
        def a(self) -> str:
            calls.append("a")
            return f"a{self.state.get('n', 0)}"

        @listen(a)
        def b(self, x: str) -> str:
            calls.append("b")
            return x + "b"

    assert Keyed().kickoff({"n": 1}, run_key="k") == "a1b"
    assert Keyed().kickoff({"n": 1}, run_key="k") == "a1b"
    assert calls == ["a", "b"]
    with pytest.raises(CheckpointError, match="other inputs"):
        Keyed().kickoff({"n": 2}, run_key="k")
    with pytest.raises(CheckpointError, match="not both"):
        Keyed().kickoff(run_key="k2", restore_from_state_id="x")
    assert Keyed().kickoff({"n": 2}, run_key="k2") == "a2b"

    class Plain(Flow[dict]):
        @start()
        def a(self) -> str:
            return "a"

    with pytest.raises(CheckpointError, match="needs a persisted flow"):
        Plain().kickoff(run_key="k")
    assert issubclass(RunLeasedError, CheckpointError)


def test_a_held_flow_run_is_refused_naming_the_holder_then_free_after_release(tmp_path: Path) -> None:
    from crewgraph.checkpoint.lease import acquire_lease

    store = SQLiteFlowPersistence(tmp_path / "held.db")

    @persist(store)
    class Asks(Flow[dict]):
        input_provider = "persisted"

        @start()
        def a(self) -> str:
            return str(self.ask("ok?"))

    pending = Asks().kickoff()
    mine = acquire_lease(store.lease_backend(), f"flow:{pending.run_id}", ttl=5, owns_backend=True)
    try:
        with pytest.raises(RunLeasedError, match=f"pid {os.getpid()}.*lease expires at"):
            Asks().resume(pending.run_id, "yes")
    finally:
        mine.release()
    assert Asks().resume(pending.run_id, "yes") == "yes"


def test_a_waiter_whose_run_moved_on_to_a_new_question_does_not_answer_it(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    import logging
    import threading

    from crewgraph.checkpoint.lease import acquire_lease, holding

    store = SQLiteFlowPersistence(tmp_path / "moved.db")

    @persist(store)
    class TwoQuestions(Flow[dict]):
        input_provider = "persisted"
        lease_wait = 10

        @start()
        def first(self) -> str:
            return str(self.ask("First?"))

        @listen(first)
        def second(self, one: str) -> str:
            return one + str(self.ask("Second?"))

    pending = TwoQuestions().kickoff()
    outcome: list[BaseException | Any] = []
    keeper = acquire_lease(store.lease_backend(), f"flow:{pending.run_id}", ttl=5, owns_backend=True)
    with holding(keeper):  # this task answers first; the waiter's answer was meant for "First?"
        waiter = threading.Thread(target=lambda: outcome.append(_catch(TwoQuestions.resume, pending.run_id, "late")))
        caplog.set_level(logging.INFO, logger="crewgraph.checkpoint")
        waiter.start()
        deadline = time.monotonic() + 20  # until it meets this task's lease and waits for it
        while not any(r.getMessage().startswith("waiting up to") for r in caplog.records):
            assert time.monotonic() < deadline and waiter.is_alive(), outcome
            time.sleep(0.01)
        again = TwoQuestions().resume(pending.run_id, "early")
        assert again.question == "Second?"
    waiter.join(timeout=20)
    assert isinstance(outcome[0], ValueError) and "answered by another process meanwhile" in str(outcome[0])
    assert "second: Second?" in str(outcome[0])
    assert TwoQuestions().resume(pending.run_id, "!") == "early!"


def _catch(call: Any, *args: Any) -> Any:
    try:
        return call(*args)
    except BaseException as exc:
        return exc


def test_kickoff_with_the_id_of_a_held_unfinished_run_is_refused(tmp_path: Path) -> None:
    from crewgraph.checkpoint.lease import acquire_lease

    store = SQLiteFlowPersistence(tmp_path / "byid.db")
    runs: list[str] = []

    @persist(store)
    class Fails(Flow[dict]):
        @start()
        def a(self) -> str:
            runs.append("a")
            if self.state.get("fail", True):
                raise RuntimeError("boom")
            return "ok"

    flow = Fails()
    with pytest.raises(RuntimeError):
        flow.kickoff()
    state_id = flow.state["id"]
    failed = store.latest_run(state_id)
    assert failed is not None and failed["status"] == "failed"
    mine = acquire_lease(store.lease_backend(), f"flow:{failed['run_id']}", ttl=5, owns_backend=True)
    try:
        with pytest.raises(RunLeasedError, match=f"flow run '{failed['run_id']}'"):
            Fails().kickoff({"id": state_id, "fail": False})
    finally:
        mine.release()
    assert runs == ["a"]
    assert Fails().kickoff({"id": state_id, "fail": False}) == "ok"


def test_a_stalled_flow_holder_resumed_after_a_takeover_is_fenced_off(tmp_path: Path) -> None:
    """SIGSTOP a keyed flow run mid-method past its 0.6 s lease; another process takes the run
    over and finishes it; SIGCONT: the late holder's journal write is refused (fencing), it raises
    LeaseLostError, and the method's completion is journaled once (the taker's)."""
    db, log = tmp_path / "flows.db", tmp_path / "log.txt"
    victim = start_python([str(APP), str(db), str(log), "keyed", "nightly", "1.0"],
                          env=_env(CREWGRAPH_LEASE_SECONDS="0.6"), output=tmp_path / "victim")
    try:
        deadline = time.monotonic() + 30
        while not _reviews(log) and time.monotonic() < deadline and victim.poll() is None:
            time.sleep(0.01)
        assert _reviews(log), "the victim never reached review"
        stop_outside_a_write(victim.pid, str(db))  # inside review's 1 s: its lease expires meanwhile
        try:
            taken = json.loads(_run(db, log, "keyed", "nightly", "0", env=_env(CREWGRAPH_LEASE_WAIT="20")))
        finally:
            victim.send_signal(signal.SIGCONT)
        victim.wait(timeout=60)
        out, err = victim.output()
    finally:
        if victim.poll() is None:
            victim.kill()
            victim.wait()
    assert taken == {"result": "reviewed yes"}
    late = json.loads(out.strip().splitlines()[-1])
    assert late["error"] == "LeaseLostError" and "lost its lease on flow:" in late["message"], (late, err[-2000:])
    store = SQLiteFlowPersistence(db)
    (run,) = store.list_runs()
    steps = [method for method, _blob in store.load_steps(str(run["run_id"]))]
    assert steps == ["draft", "review"]  # review journaled once: the taker's, not the late holder's
    assert run["status"] == "completed"
    pids = [line.split()[0] for line in _reviews(log)]
    assert len(pids) == 2 and pids[0] == str(victim.pid) != pids[1]  # the taker ran review again
