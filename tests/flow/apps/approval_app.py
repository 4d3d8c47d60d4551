"""A persisted approval flow run by the pause/resume and SIGKILL tests in real processes.

``python approval_app.py pause``  -> kicks off, prints ``<run_id>|<question>`` (paused)
``python approval_app.py crash BLOCK_FILE`` -> kicks off a long flow; ``slow`` waits while
BLOCK_FILE exists (the test SIGKILLs it there), printing its run id first.
Every method appends ``<pid> <method>`` to $FLOW_LOG, so a test sees what ran where.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from crewgraph.flow import Flow, listen, router, start
from crewgraph.flow.persistence import persist


def log(method: str) -> None:
    with open(os.environ["FLOW_LOG"], "a") as fh:
        fh.write(f"{os.getpid()} {method}\n")
        fh.flush()
        os.fsync(fh.fileno())


@persist()
class Approval(Flow[dict]):
    input_provider = "persisted"

    @start()
    def draft(self) -> str:
        log("draft")
        self.state["drafts"] = self.state.get("drafts", 0) + 1
        return "a short post"

    @listen(draft)
    def review(self, text: str) -> str:
        log("review")
        return self.ask(f"Publish {text!r}? (yes/no)")

    @router(review)
    def decide(self, answer: str) -> str:
        log("decide")
        return "publish" if answer.strip().lower() == "yes" else "drop"

    @listen("publish")
    def do_publish(self) -> str:
        log("publish")
        self.state["published"] = True
        return f"published after {self.state['drafts']} draft(s)"

    @listen("drop")
    def do_drop(self) -> str:
        log("drop")
        return "dropped"


@persist()
class Long(Flow[dict]):
    input_provider = "persisted"

    @start()
    def one(self) -> int:
        log("one")
        self.state["total"] = self.state.get("total", 0) + 1
        return 1

    @listen(one)
    def two(self, n: int) -> int:
        log("two")
        self.state["total"] += 10
        return n + 1

    @listen(two)
    def three(self, n: int) -> int:
        log("three")
        self.state["total"] += 100
        return n + 1

    @listen(three)
    def slow(self, n: int) -> int:
        log("slow")
        block = Path(os.environ["FLOW_BLOCK"])
        deadline = time.monotonic() + 60
        while block.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        self.state["total"] += 1000
        return n + 1

    @listen(slow)
    def five(self, n: int) -> str:
        log("five")
        self.state["total"] += 10000
        return f"done {n} total={self.state['total']}"


if __name__ == "__main__":
    if sys.argv[1] == "pause":
        pending = Approval().kickoff()
        print(f"{pending.run_id}|{pending.question}", flush=True)
    elif sys.argv[1] == "crash":
        flow = Long()
        print(flow.flow_id, flush=True)
        print(flow.kickoff(), flush=True)
