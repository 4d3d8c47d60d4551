"""Flows paused by CrewAI's async feedback, resumed by racing real processes (issue 26).

``python feedback_race_app.py DB LOG`` serves one JSON command per line on stdin (crewgraph
imported once, so two processes can act at the same instant trial after trial) and answers one
JSON line:

- ``{"command": "start", "kind": K}``: kick the flow off; its provider raises
  HumanFeedbackPending; answers the pending ``flow_id``.
- ``{"command": "resume", "kind": K, "flow_id": F, "feedback": T}``: wait for the file
  ``LOG.go``, then ``Flow.from_pending(F, persistence).resume(T)``.

Kind ``sqlite``: ``@persist(SQLiteFlowPersistence(DB))`` (a journaled run). Kind ``custom``: a
user's FlowPersistence subclass keeping JSON files beside DB, leasing through
``SQLiteLeases(DB + ".leases")`` (its ``lease_backend()``). The method after the feedback
appends ``<pid> publish <feedback>`` to LOG (fsynced).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from crewgraph.checkpoint import SQLiteLeases
from crewgraph.flow import (
    Flow,
    HumanFeedbackPending,
    PendingFeedbackContext,
    human_feedback,
    listen,
    persist,
    start,
)
from crewgraph.flow.persistence import FlowPersistence, SQLiteFlowPersistence

DB, LOG = sys.argv[1], Path(sys.argv[2])


def log(line: str) -> None:
    with LOG.open("a", encoding="utf-8") as fh:
        fh.write(f"{os.getpid()} {line}\n")
        fh.flush()
        os.fsync(fh.fileno())


class FilePersistence(FlowPersistence):
    """A user's store: one JSON file per state and per pending feedback, leased through SQLite."""

    folder: str

    def init_db(self) -> None:
        Path(self.folder).mkdir(parents=True, exist_ok=True)

    def _file(self, kind: str, flow_uuid: str) -> Path:
        self.init_db()
        return Path(self.folder) / f"{kind}-{flow_uuid}.json"

    def save_state(self, flow_uuid: str, method_name: str, state_data: dict[str, Any] | BaseModel) -> None:
        data = state_data.model_dump() if isinstance(state_data, BaseModel) else dict(state_data)
        self._file("state", flow_uuid).write_text(json.dumps(data, default=str))

    def load_state(self, flow_uuid: str) -> dict[str, Any] | None:
        path = self._file("state", flow_uuid)
        return json.loads(path.read_text()) if path.exists() else None

    def save_pending_feedback(self, flow_uuid: str, context: PendingFeedbackContext,
                              state_data: dict[str, Any] | BaseModel) -> None:
        self.save_state(flow_uuid, context.method_name, state_data)
        self._file("pending", flow_uuid).write_text(json.dumps(
            {"state": self.load_state(flow_uuid), "context": context.to_dict()}, default=str))

    def load_pending_feedback(self, flow_uuid: str) -> tuple[dict[str, Any], PendingFeedbackContext] | None:
        path = self._file("pending", flow_uuid)
        if not path.exists():
            return None
        found = json.loads(path.read_text())
        return found["state"], PendingFeedbackContext.from_dict(found["context"])

    def clear_pending_feedback(self, flow_uuid: str) -> None:
        self._file("pending", flow_uuid).unlink(missing_ok=True)

    def lease_backend(self) -> SQLiteLeases:
        return SQLiteLeases(f"{DB}.leases")


class Later:
    """A provider that pauses: the feedback comes later, from another process."""

    def request_feedback(self, context: PendingFeedbackContext, flow: Flow) -> str:
        raise HumanFeedbackPending(context=context)


class Pipeline(Flow[dict]):
    @start()
    @human_feedback(message="Approve this draft?", provider=Later())
    def draft(self) -> str:
        return "a draft"

    @listen(draft)
    def publish(self, result: Any) -> str:
        log(f"publish {result.feedback}")
        time.sleep(0.2)
        return f"published {result.feedback}"


@persist(SQLiteFlowPersistence(DB))
class PersistedPipeline(Pipeline):
    pass


def flow_and_store(kind: str) -> tuple[type[Flow[Any]], FlowPersistence | None]:
    if kind == "sqlite":
        return PersistedPipeline, None
    return Pipeline, FilePersistence(folder=f"{DB}.files")


def handle(request: dict[str, Any]) -> dict[str, Any]:
    cls, store = flow_and_store(request["kind"])
    if request["command"] == "start":
        pending = cls(persistence=store).kickoff() if store is not None else cls().kickoff()
        assert isinstance(pending, HumanFeedbackPending), pending
        return {"flow_id": pending.context.flow_id}
    go = Path(f"{LOG}.go")
    deadline = time.monotonic() + 20
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.002)
    try:
        flow = cls.from_pending(request["flow_id"], store) if store is not None else cls.from_pending(request["flow_id"])
        return {"result": flow.resume(request["feedback"])}
    except Exception as exc:
        return {"error": type(exc).__name__, "message": str(exc)}


if __name__ == "__main__":
    for line in sys.stdin:
        sys.stdout.write(json.dumps(handle(json.loads(line))) + "\n")
        sys.stdout.flush()
