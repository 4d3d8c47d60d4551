"""A persisted flow raced by real processes (tests/flow/test_flow_leases.py).

``python lease_flow_app.py DB LOG COMMAND [ARG]``; every run of ``review`` appends
``<pid> review <answer>`` to LOG (fsynced, so a SIGKILLed process leaves an exact record).

- ``start``: kick the flow off; it pauses at ``draft``'s question; prints the run id.
- ``answer RUN_ID TEXT``: print ``ready``, wait for the file ``LOG.go``, then
  ``Flow.resume(RUN_ID, TEXT)``; prints the outcome as one JSON line.
- ``keyed KEY SLEEP``: ``kickoff(run_key=KEY)`` of the same flow with its question answered up
  front, ``review`` sleeping SLEEP seconds (not an input) (the victim of a SIGKILL sleeps long).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from crewgraph.flow import Flow, listen, persist, start
from crewgraph.flow.persistence import SQLiteFlowPersistence

DB, LOG, COMMAND = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
ARGS = sys.argv[4:]
SLEEP = float(ARGS[1]) if COMMAND == "keyed" else 0.6  # not an input: the key's inputs stay the same


def log(line: str) -> None:
    with LOG.open("a", encoding="utf-8") as fh:
        fh.write(f"{os.getpid()} {line}\n")
        fh.flush()
        os.fsync(fh.fileno())


@persist(SQLiteFlowPersistence(DB))
class Review(Flow[dict]):
    input_provider = "persisted"

    @start()
    def draft(self) -> str:
        if "answer" in self.state:
            return str(self.state["answer"])
        return str(self.ask("Accept the draft?"))

    @listen(draft)
    def review(self, answer: str) -> str:
        log(f"review {answer}")
        time.sleep(SLEEP)
        return f"reviewed {answer}"


def outcome(call: object) -> dict[str, object]:
    try:
        result = call() if callable(call) else call
    except Exception as exc:
        return {"error": type(exc).__name__, "message": str(exc)}
    return {"result": getattr(result, "run_id", result) if not isinstance(result, str) else result}


if COMMAND == "start":
    print(Review().kickoff().run_id, flush=True)
elif COMMAND == "answer":
    run_id, text = ARGS
    print("ready", flush=True)
    go = Path(f"{LOG}.go")
    deadline = time.monotonic() + 20
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.005)
    print(json.dumps(outcome(lambda: Review.resume(run_id, text))), flush=True)
elif COMMAND == "keyed":
    key = ARGS[0]
    print(json.dumps(outcome(lambda: Review().kickoff({"answer": "yes"}, run_key=key))),
          flush=True)
else:
    raise SystemExit(f"unknown command {COMMAND!r}")
