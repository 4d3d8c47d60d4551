"""A resumed flow takes exactly the branches the first run took: a router is not asked again."""

from __future__ import annotations

from pathlib import Path

from crewgraph.flow import Flow, listen, router, start
from crewgraph.flow.human_feedback import PendingRun
from crewgraph.flow.persistence import persist

ROUTER_CALLS: list[str] = []


@persist()
class Triage(Flow[dict]):
    input_provider = "persisted"

    @start()
    def receive(self) -> str:
        return "ticket"

    @router(receive)
    def classify(self, ticket: str) -> str:
        ROUTER_CALLS.append(ticket)
        return "urgent" if len(ROUTER_CALLS) == 1 else "later"  # differs on a second call

    @listen("urgent")
    def escalate(self) -> str:
        return "escalated: " + self.ask("Who takes it?")

    @listen("later")
    def queue(self) -> str:
        return "queued"


def test_a_flow_router_is_not_asked_again_on_resume(storage_dir: Path) -> None:
    ROUTER_CALLS.clear()
    pending = Triage().kickoff()
    assert isinstance(pending, PendingRun) and pending.question == "Who takes it?"
    assert ROUTER_CALLS == ["ticket"]
    # A new instance, as a later process would build: the journal replays the router's label.
    assert Triage.resume(pending.run_id, "Ada") == "escalated: Ada"
    assert ROUTER_CALLS == ["ticket"]
