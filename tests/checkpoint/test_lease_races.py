"""Issue 26's probes, with real processes: one run has one owner, so nothing runs twice.

Two *racer* processes (``apps/lease_app.py serve``, crewgraph imported once) get the same
command at the same instant, trial after trial; a third process is SIGKILLed mid-run where a
probe needs a crashed holder. The two probes that matter most across machines (two resumers of a
paused review, two resumers of a killed batch) also run with the store on a real PostgreSQL
(``pg_racers``: the same app, ``LEASE_DB`` a ``postgresql://`` URL). The model answers a
little slowly (so the races overlap) and logs every call of every process to one file. Leases are short
(``$CREWGRAPH_LEASE_SECONDS``) to keep expiry tests fast.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _forkserver import start_python, start_python_piped
from _processes import stop_outside_a_write

import crewgraph
from crewgraph.checkpoint import SQLiteCheckpointStore
from crewgraph.checkpoint.location import open_batch_store

APP = Path(__file__).resolve().parent / "apps" / "lease_app.py"
REPO_ROOT = Path(crewgraph.__file__).resolve().parents[1]
_STARTED = itertools.count(1)
TRIALS = 8  # a race that failed 1 in 5 would pass all of them with probability 0.8**8 < 0.17 per test


class Calls:
    """The model calls every process made, from the shared call log."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def lines(self) -> list[str]:
        return self.path.read_text(encoding="utf-8").splitlines() if self.path.exists() else []

    def mark(self) -> int:
        return len(self.lines())

    def since(self, mark: int) -> list[str]:
        return [line.split(" ", 1)[1] for line in self.lines()[mark:]]

    def began(self, task: str, after: float) -> dict[int, list[float]]:
        """When each process began its calls for ``task`` (wall clock) since ``after``."""
        path = self.path.with_name(self.path.name + ".times")
        found: dict[int, list[float]] = {}
        for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
            pid, rest = line.split(" ", 1)
            name, _, when = rest.rpartition(" ")
            if name == task and float(when) >= after:
                found.setdefault(int(pid), []).append(float(when))
        return found


class Racer:
    """One long-lived process answering commands (see the app's docstring), forked from the
    per-worker fork server (crewgraph imported), its stdin/stdout named pipes."""

    def __init__(self, env: dict[str, str]) -> None:
        output = Path(env["LEASE_CALL_LOG"]).with_name(f"racer-{next(_STARTED)}")
        self.proc = start_python_piped([str(APP), "serve"], env=env, output=output)
        self.answer: dict[str, Any] | None = None

    def send(self, command: str, *args: str, wait: float = 0.0, latency: float | None = None,
             gate: Path | None = None) -> None:
        assert self.proc.stdin is not None
        self.answer = None
        request: dict[str, Any] = {"command": command, "args": list(args), "wait": wait}
        if latency is not None:
            request["latency"] = latency
        if gate is not None:  # its "Outline" call answers only once that file exists
            request["gate"] = str(gate)
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = 60.0) -> dict[str, Any]:
        assert self.proc.stdout is not None
        box: list[str] = []
        reader = threading.Thread(target=lambda: box.append(self.proc.stdout.readline()), daemon=True)
        reader.start()
        deadline = time.monotonic() + timeout
        while reader.is_alive() and time.monotonic() < deadline:
            reader.join(0.05)
            if self.proc.poll() is not None:  # it ended: whatever it wrote is readable now
                reader.join(0.5)
                break
        if not box or not box[0]:
            self.proc.kill()
            stderr = self.proc.output()[1]
            raise AssertionError(f"racer gave no answer within {timeout} s (exit {self.proc.poll()}): {stderr[-3000:]}")
        answer: dict[str, Any] = json.loads(box[0])
        return answer

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("leases")
    return {**os.environ, "PYTHONPATH": str(REPO_ROOT), "LEASE_CALL_LOG": str(tmp / "calls.log"),
            "LEASE_DB": str(tmp / "cp.db"), "LEASE_TOOL_LOG": str(tmp / "tools.log"), "LEASE_LATENCY": "0.25",
            "CREWGRAPH_LEASE_SECONDS": "1.5"}


@pytest.fixture(scope="module")
def server(env: dict[str, str]) -> Calls:
    return Calls(Path(env["LEASE_CALL_LOG"]))


@pytest.fixture(scope="module")
def stalled(env: dict[str, str]) -> Iterator[Racer]:
    """The holder the fencing test stalls: a short lease, a quick model; started (and warming up,
    with no model call) while the other racers warm up."""
    racer = Racer({**env, "CREWGRAPH_LEASE_SECONDS": "0.6", "LEASE_LATENCY": "0.1"})
    racer.send("warm")
    try:
        yield racer
    finally:
        racer.close()


@pytest.fixture(scope="module")
def racers(env: dict[str, str], stalled: Racer) -> Iterator[tuple[Racer, Racer]]:
    yield from _racers(env)


@pytest.fixture(scope="module")
def pg_env(tmp_path_factory: pytest.TempPathFactory, postgres_server: str) -> dict[str, str]:
    import secrets

    tmp = tmp_path_factory.mktemp("pg-leases")
    return {**os.environ, "PYTHONPATH": str(REPO_ROOT), "LEASE_CALL_LOG": str(tmp / "calls.log"),
            "LEASE_DB": f"{postgres_server}?schema=races_{secrets.token_hex(4)}",
            "LEASE_TOOL_LOG": str(tmp / "tools.log"), "LEASE_LATENCY": "0.25", "CREWGRAPH_LEASE_SECONDS": "1.5"}


@pytest.fixture(scope="module")
def pg_racers(pg_env: dict[str, str]) -> Iterator[tuple[Racer, Racer]]:
    yield from _racers(pg_env)


def _racers(env: dict[str, str]) -> Iterator[tuple[Racer, Racer]]:
    pair = (Racer(env), Racer(env))
    try:
        for racer in pair:  # warm: every code path imported, so both reach the lease at once
            run_id = _start_review((racer, racer))
            racer.send("review-resume", run_id, "")
            assert "ok" in racer.receive()
        yield pair
    finally:
        for racer in pair:
            racer.close()


def _race(racers: tuple[Racer, Racer], command: str, *args: str, wait: float = 0.0) -> list[dict[str, Any]]:
    for racer in racers:
        racer.send(command, *args, wait=wait)
    return [racer.receive() for racer in racers]


def _calls(server: Calls, since: int) -> list[str]:
    return server.since(since)


def _start_review(racers: tuple[Racer, Racer]) -> str:
    racers[0].send("review-start")
    started = racers[0].receive()["ok"]
    assert started["pending"] is True
    return str(started["run_id"])


# ---------------------------------------------------------------------- the probes
def test_two_resumers_of_one_paused_review_revise_it_once(server: Calls,
                                                           racers: tuple[Racer, Racer]) -> None:
    _two_resumers_of_one_review(server, racers)


def test_two_resumers_of_one_paused_review_on_postgresql(pg_env: dict[str, str],
                                                          pg_racers: tuple[Racer, Racer]) -> None:
    _two_resumers_of_one_review(Calls(Path(pg_env["LEASE_CALL_LOG"])), pg_racers)


def _two_resumers_of_one_review(server: Calls, racers: tuple[Racer, Racer]) -> None:
    for _trial in range(TRIALS):
        run_id = _start_review(racers)
        mark = server.mark()
        answers = _race(racers, "review-resume", run_id, "make it shorter")
        assert _calls(server, mark) == ["Draft a post"], answers  # one revision, whatever the number of processes
        winners = [a for a in answers if "ok" in a]
        losers = [a for a in answers if "ok" not in a]
        assert len(winners) == 1 and winners[0]["ok"]["pending"] is True, answers
        for lost in losers:
            assert lost["error"] == "leased", lost
            assert f"crew run {run_id!r}" in lost["message"] and "pid" in lost["holder"]
            assert "lease expires at" in lost["message"]


def test_two_simultaneous_accepts_run_the_next_task_once(server: Calls,
                                                          racers: tuple[Racer, Racer]) -> None:
    for _trial in range(TRIALS):
        run_id = _start_review(racers)
        mark = server.mark()
        answers = _race(racers, "review-resume", run_id, "")
        assert _calls(server, mark) == ["Title the post"]
        done = [a["ok"] for a in answers if "ok" in a]
        assert len(done) == 1 and done[0]["raw"] == "Night Owls", answers
        (lost,) = [a for a in answers if "ok" not in a]
        # met the lease, or came after the run completed: either way, nothing ran again
        assert lost["error"] in ("leased", "checkpoint"), lost
        if lost["error"] == "checkpoint":
            assert "already completed" in lost["message"]


def test_a_second_kickoff_from_checkpoint_during_a_live_run_gets_the_holder(
        server: Calls, racers: tuple[Racer, Racer], env: dict[str, str]) -> None:
    log = Path(env["LEASE_TOOL_LOG"])
    for trial in range(TRIALS):
        with SQLiteCheckpointStore(env["LEASE_DB"]) as store:  # a finished earlier trial: start afresh
            for run in store.list_runs(name="research", limit=None):
                store.delete_run(run.run_id)
        log.write_text("")
        mark = server.mark()
        first, second = racers
        gate = Path(env["LEASE_CALL_LOG"]).with_name(f"gate-{next(_STARTED)}")
        waits = Path(env["LEASE_CALL_LOG"] + ".waits")
        try:
            first.send("crew", gate=gate)  # its "Outline" answers once the gate opens: live until then
            _wait_for_line(server.path, f"{first.proc.pid} Gather facts", mark)  # leased, under way
            waited = _lines(waits)
            second.send("crew", wait=0.0 if trial % 2 == 0 else 20.0)
            if trial % 2 == 0:
                b = second.receive()
            else:  # it met the first's lease and waits for it: let the first finish
                _wait_for_line(waits, f"{second.proc.pid} waiting", waited)
        finally:
            gate.touch()
        a = first.receive()["ok"]
        if trial % 2 == 1:
            b = second.receive()
        assert a["raw"] == "done: Summarise"
        if trial % 2 == 0:  # no waiting: a clear error naming the holder
            assert b["error"] == "leased", b
            assert f"pid {a['pid']}" in b["holder"] and "crew run" in b["message"]
        else:  # waiting: it gets the lease once the first is done, and restores everything
            assert b["ok"]["raw"] == a["raw"] and b["ok"]["run_id"] == a["run_id"]
        assert sorted(_calls(server, mark)) == sorted(["Gather facts", "Gather facts", "Outline", "Summarise"])
        assert len(log.read_text().splitlines()) == 1  # the tool ran once


def _batch_done(db: str, batch_id: str | None) -> int:
    try:
        with open_batch_store(db) as store:
            batches = store.list_batches(name="tagger")
            found = [b for b in batches if batch_id is None or b.batch_id == batch_id]
            return found[0].completed if found else 0
    except Exception:
        return 0


def test_two_resumers_of_one_killed_batch_run_each_input_once(server: Calls,
                                                               racers: tuple[Racer, Racer],
                                                               env: dict[str, str]) -> None:
    _two_resumers_of_one_killed_batch(server, racers, env, trials=3)


def test_two_resumers_of_one_killed_batch_on_postgresql(pg_env: dict[str, str],
                                                        pg_racers: tuple[Racer, Racer]) -> None:
    """Every input is leased on its own: each trial is twelve races, decided by the server."""
    _two_resumers_of_one_killed_batch(Calls(Path(pg_env["LEASE_CALL_LOG"])), pg_racers, pg_env, trials=2)


def _two_resumers_of_one_killed_batch(server: Calls, racers: tuple[Racer, Racer], env: dict[str, str],
                                      trials: int) -> None:
    total = 12
    for trial in range(trials):
        victim = start_python([str(APP), "batch", str(total), "new"], env=env,
                              output=Path(env["LEASE_CALL_LOG"]).with_name(f"victim-{next(_STARTED)}"))
        try:
            deadline = time.monotonic() + 60
            while victim.poll() is None and time.monotonic() < deadline:
                with open_batch_store(env["LEASE_DB"]) as store:
                    batches = store.list_batches(name="tagger", limit=1)
                if batches and batches[0].status == "running" and batches[0].completed >= 3 + trial:
                    break
                time.sleep(0.02)
            assert victim.poll() is None, "the batch ended before it could be killed"
            os.kill(victim.pid, signal.SIGKILL)
        finally:
            victim.wait(timeout=30)
        with open_batch_store(env["LEASE_DB"]) as store:
            batch = store.list_batches(name="tagger", limit=1)[0]
            finished = {i.index for i in store.items(batch.batch_id) if i.status == "completed"}
        assert batch.status == "running" and len(finished) < total
        resume_mark = server.mark()
        answers = _race(racers, "batch", str(total), batch.batch_id, wait=20.0)
        for answer in answers:  # both share the inputs and both return all of them
            assert "ok" in answer, answer
            assert answer["ok"]["raws"] == [f"done: Tag the topic t{i}" for i in range(total)], answer
        after = _calls(server, resume_mark)
        assert len(after) == len(set(after)), f"an input ran twice after the kill: {sorted(after)}"
        unfinished = {f"Tag the topic t{i}" for i in range(total) if i not in finished}
        assert set(after) <= unfinished  # a finished input is restored, never run
        with open_batch_store(env["LEASE_DB"]) as store:
            assert store.get_batch(batch.batch_id).status == "completed"



@pytest.mark.parametrize("how", ["SIGKILL", "SIGSTOP"])
def test_a_dead_or_stalled_holder_loses_its_lease_and_the_run_resumes_once(
        how: str, server: Calls, racers: tuple[Racer, Racer], env: dict[str, str]) -> None:
    """SIGKILL: on this machine the holder is known gone, its lease is taken over at once.
    SIGSTOP: the holder looks alive but stops renewing; its lease expires (1.5 s) and then one
    of two waiting resumers takes the run over and finishes it, the other restores it.

    The victim's "Outline" call never answers (its gate file is never made), so it is stopped or
    killed mid-node however late this process gets to it on a loaded machine."""
    with SQLiteCheckpointStore(env["LEASE_DB"]) as store:
        for run in store.list_runs(name="research", limit=None):
            store.delete_run(run.run_id)
    Path(env["LEASE_TOOL_LOG"]).write_text("")
    mark = server.mark()
    never = Path(env["LEASE_CALL_LOG"]).with_name(f"gate-{next(_STARTED)}")
    victim = start_python([str(APP), "crew"], env={**env, "LEASE_GATE": str(never)},
                          output=Path(env["LEASE_CALL_LOG"]).with_name(f"victim-{next(_STARTED)}"))
    try:
        deadline = time.monotonic() + 60
        while "Outline" not in _calls(server, mark) and victim.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert victim.poll() is None, victim.output()
        # mid-"Outline": gather is saved, the rest is not
        if how == "SIGSTOP":  # not inside a write: SQLite's write lock would stop everyone (documented)
            stop_outside_a_write(victim.pid, env["LEASE_DB"])
            expires = _lease_expiry(env["LEASE_DB"], victim.pid)  # it renews it no more
        else:
            os.kill(victim.pid, signal.SIGKILL)
        stopped_at = time.time()
        before = _calls(server, mark)
        answers = _race(racers, "crew", wait=20.0)
    finally:
        victim.kill()
        victim.wait(timeout=30)
    outs = [a["ok"] for a in answers]
    assert outs[0]["raw"] == outs[1]["raw"] == "done: Summarise" and outs[0]["run_id"] == outs[1]["run_id"]
    assert before == ["Gather facts", "Gather facts", "Outline"]
    assert _calls(server, mark)[len(before):] == ["Outline", "Summarise"]  # the rest, exactly once
    assert len(Path(env["LEASE_TOOL_LOG"]).read_text().splitlines()) == 1
    if how == "SIGSTOP":  # the resumer waited for the stalled holder's lease to expire
        (resumed,) = server.began("Outline", after=stopped_at).values()
        assert min(resumed) >= expires, (resumed, expires)


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


def _wait_for_line(path: Path, line: str, after: int, timeout: float = 60.0) -> None:
    """Wait (bounded) until ``path`` has ``line`` past its first ``after`` lines."""
    deadline = time.monotonic() + timeout
    while not (path.exists() and line in path.read_text(encoding="utf-8").splitlines()[after:]):
        assert time.monotonic() < deadline, f"no {line!r} in {path} within {timeout} s"
        time.sleep(0.01)


def _lease_expiry(db: str, pid: int) -> float:
    """When the lease ``pid`` holds in ``db`` (its run's, the only one) expires."""
    import sqlite3

    conn = sqlite3.connect(db, timeout=30)
    try:
        rows = conn.execute("SELECT expires_at FROM leases WHERE pid = ?", (pid,)).fetchall()
    finally:
        conn.close()
    assert len(rows) == 1, rows
    return float(rows[0][0])


FENCE_TRIALS = 8  # a fence that failed 1 in 5 would pass all of them with probability < 0.17


def test_a_stalled_holder_resumed_after_a_takeover_is_fenced_off_and_writes_nothing(
        server: Calls, racers: tuple[Racer, Racer], stalled: Racer, env: dict[str, str]) -> None:
    """SIGSTOP the holder mid-node past its (short) lease, let another process take the run over
    and finish it, then SIGCONT the holder: its next checkpoint write is refused (fencing), it
    reports that it lost the lease, and each node's result is recorded exactly once."""
    assert stalled.receive() == {"ok": "warm"}
    taker = racers[0]
    started = time.monotonic()
    for _trial in range(FENCE_TRIALS):
        assert time.monotonic() - started < 120, "fencing trials took too long"
        with SQLiteCheckpointStore(env["LEASE_DB"]) as store:
            for run in store.list_runs(name="research", limit=None):
                store.delete_run(run.run_id)
        mark = server.mark()
        gate = Path(env["LEASE_CALL_LOG"]).with_name(f"gate-{next(_STARTED)}")
        stalled.send("crew", gate=gate)  # its "Outline" answers once the gate file exists
        pid = stalled.proc.pid
        deadline = time.monotonic() + 30
        while f"{pid} Outline" not in server.lines()[mark:] and time.monotonic() < deadline:
            time.sleep(0.01)
        stop_outside_a_write(pid, env["LEASE_DB"])  # mid-"Outline": its model call is in flight
        try:
            taker.send("crew", wait=20.0, latency=0.05)
            took_over = taker.receive()
        finally:
            os.kill(pid, signal.SIGCONT)
            gate.touch()  # its "Outline" answers now: the node ends and its save meets the fence
        late = stalled.receive()
        assert took_over["ok"]["raw"] == "done: Summarise", took_over
        assert late.get("error") == "lease_lost", late  # it woke, found the lease gone, and stopped
        assert "lost its lease" in late["message"] and "stalled" in late["message"]
        run_id = took_over["ok"]["run_id"]
        by_pid = [line.split(" ", 1) for line in server.lines()[mark:]]
        assert [t for p, t in by_pid if p == str(pid)] == ["Gather facts", "Gather facts", "Outline"]
        assert [t for p, t in by_pid if p != str(pid)] == ["Outline", "Summarise"]
        with SQLiteCheckpointStore(env["LEASE_DB"]) as store:
            saved = [n.node_id for n in store.nodes(run_id, latest_only=False)]
            info = store.get_run(run_id)
        assert len(saved) == len(set(saved)), f"a node result was recorded twice: {saved}"
        assert info.status == "completed"  # the taker's end of the run, not the late holder's
