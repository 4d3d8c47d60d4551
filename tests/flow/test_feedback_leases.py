"""CrewAI's resume path, leased: two processes resuming one pending feedback run the next method once.

``Flow.from_pending(flow_id, persistence).resume(feedback)`` in two real processes at the same
instant, trial after trial, on crewgraph's SQLite store (a journaled run) and on a user's
``FlowPersistence`` subclass that leases through ``lease_backend()``; a store that cannot
lease says so once (UnleasedStoreWarning) instead of running unguarded in silence.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import crewgraph
from crewgraph.checkpoint.lease import UnleasedStoreWarning

APP = Path(__file__).resolve().parent / "apps" / "feedback_race_app.py"
REPO_ROOT = Path(crewgraph.__file__).resolve().parents[1]
TRIALS = 8  # a race that failed 1 in 5 would pass all of them with probability < 0.17


class Server:
    def __init__(self, db: Path, log: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
        env.pop("CREWGRAPH_LEASE_WAIT", None)
        self.proc = subprocess.Popen([sys.executable, str(APP), str(db), str(log)], env=env, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def send(self, **request: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = 60.0) -> dict[str, Any]:
        box: list[str] = []
        reader = threading.Thread(target=lambda: box.append(self.proc.stdout.readline()), daemon=True)  # type: ignore[union-attr]
        reader.start()
        reader.join(timeout)
        if not box or not box[0]:
            self.proc.kill()
            raise AssertionError(f"no answer within {timeout} s: {self.proc.stderr.read()[-3000:]}")  # type: ignore[union-attr]
        answer: dict[str, Any] = json.loads(box[0])
        return answer

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Server, Path]]:
    tmp = tmp_path_factory.mktemp("feedback")
    db, log = tmp / "flows.db", tmp / "calls.log"
    pair = (Server(db, log), Server(db, log))
    try:
        yield pair[0], pair[1], log
    finally:
        for server in pair:
            server.close()


@pytest.mark.parametrize("kind", ["sqlite", "custom"])
def test_two_processes_resuming_one_pending_feedback_run_the_next_method_once(
        servers: tuple[Server, Server, Path], kind: str) -> None:
    first, second, log = servers
    go = Path(f"{log}.go")
    for trial in range(TRIALS):
        go.unlink(missing_ok=True)
        first.send(command="start", kind=kind)
        flow_id = first.receive()["flow_id"]
        before = len(log.read_text().splitlines()) if log.exists() else 0
        for i, server in enumerate((first, second)):
            server.send(command="resume", kind=kind, flow_id=flow_id, feedback=f"ok{trial}-{i}")
        time.sleep(0.05)  # both are waiting for the go file
        go.write_text("go")
        answers = [first.receive(), second.receive()]
        published = log.read_text().splitlines()[before:]
        assert len(published) == 1, (published, answers)  # the method after the feedback ran once
        won = [a for a in answers if "result" in a]
        lost = [a for a in answers if "error" in a]
        assert len(won) == 1 and won[0]["result"] == "published " + published[0].rsplit(" ", 1)[1], answers
        # refused by the lease naming the holder, or (it came after) told the feedback was answered
        assert (lost[0]["error"] == "RunLeasedError" and "pid" in lost[0]["message"]) or \
            "already" in lost[0]["message"] or "no pending feedback" in lost[0]["message"], lost


def test_a_store_that_cannot_lease_says_so_once() -> None:
    from crewgraph.flow._lease import _WARNED, warn_unleased

    class Plain:
        pass

    _WARNED.discard(Plain)
    with pytest.warns(UnleasedStoreWarning, match="Plain cannot lease flow runs"):
        warn_unleased(Plain(), "flow run 'r1'")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_unleased(Plain(), "flow run 'r2'")  # once per class: no second warning
