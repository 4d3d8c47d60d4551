"""CrewAI's async human feedback: HumanFeedbackPending, from_pending, resume, in one and two processes."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import crewgraph
from crewgraph.events.flow_events import HumanFeedbackReceivedEvent, HumanFeedbackRequestedEvent
from crewgraph.flow import (
    Flow,
    HumanFeedbackPending,
    HumanFeedbackProvider,
    HumanFeedbackResult,
    PendingFeedbackContext,
    flow_config,
    human_feedback,
    listen,
    start,
)
from crewgraph.flow.persistence import FlowPersistence, SQLiteFlowPersistence

APPS = Path(__file__).resolve().parent / "apps"
REPO_ROOT = Path(crewgraph.__file__).resolve().parents[1]


class SlackNotificationProvider(HumanFeedbackProvider):
    """As CrewAI's docs: notify, then pause."""

    def __init__(self, channel: str):
        self.channel = channel
        self.sent: list[str] = []

    def request_feedback(self, context: PendingFeedbackContext, flow: Flow) -> str:
        self.sent.append(f"Review needed:\n\n{context.method_output}\n\n{context.message}")
        raise HumanFeedbackPending(context=context, callback_info={"slack_channel": self.channel})


slack = SlackNotificationProvider("#content-reviews")
RUNS: list[str] = []


class ContentPipeline(Flow):
    @start()
    @human_feedback(
        message="Approve this content for publication?",
        emit=["approved", "rejected", "needs_revision"],
        llm="gpt-4o-mini",
        default_outcome="needs_revision",
        provider=slack,
    )
    def generate_content(self):
        RUNS.append("generate")
        self.state["drafted"] = True
        return "AI-generated blog post content..."

    @listen("approved")
    def publish(self, result):
        return {"status": "published", "feedback": result.feedback}

    @listen("rejected")
    def archive(self, result):
        return {"status": "archived"}

    @listen("needs_revision")
    def queue_revision(self, result):
        return {"status": "revision_needed", "feedback": result.feedback}


def test_kickoff_returns_the_pending_and_from_pending_resumes(storage_dir: Path, captured: Any) -> None:
    RUNS.clear()
    result = ContentPipeline().kickoff()
    assert isinstance(result, HumanFeedbackPending)
    assert result.callback_info == {"slack_channel": "#content-reviews"}
    context = result.context
    assert context.method_name == "generate_content" and context.emit == ["approved", "rejected", "needs_revision"]
    assert context.flow_class.endswith("ContentPipeline") and context.llm == "gpt-4o-mini"
    assert slack.sent[-1].startswith("Review needed:\n\nAI-generated blog post content...")
    assert captured.of(HumanFeedbackRequestedEvent)[0].message == "Approve this content for publication?"

    flow = ContentPipeline.from_pending(context.flow_id)
    assert flow.pending_feedback is not None and flow.pending_feedback.method_output == context.method_output
    assert flow.state["drafted"] is True  # the state saved with the pending feedback
    assert flow.resume("") == {"status": "revision_needed", "feedback": ""}  # empty: default_outcome
    assert RUNS == ["generate"]  # the method did not run again
    assert flow.last_human_feedback is not None and flow.last_human_feedback.outcome == "needs_revision"
    assert [e.outcome for e in captured.of(HumanFeedbackReceivedEvent)] == ["needs_revision"]
    with pytest.raises(ValueError, match="no pending feedback"):
        ContentPipeline.from_pending(context.flow_id)  # cleared once resumed


def test_resume_async_and_a_custom_store(storage_dir: Path) -> None:
    class MemoryPersistence(FlowPersistence):
        """A user's store: CrewAI's base class with the pending-feedback methods."""

        states: dict[str, Any] = {}
        pending: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}

        def init_db(self) -> None:
            pass

        def save_state(self, flow_uuid: str, method_name: str, state_data: dict[str, Any] | BaseModel) -> None:
            self.states[flow_uuid] = dict(state_data) if isinstance(state_data, dict) else state_data.model_dump()

        def load_state(self, flow_uuid: str) -> dict[str, Any] | None:
            return self.states.get(flow_uuid)

        def save_pending_feedback(self, flow_uuid: str, context: PendingFeedbackContext,
                                  state_data: dict[str, Any] | BaseModel) -> None:
            self.save_state(flow_uuid, context.method_name, state_data)
            self.pending[flow_uuid] = (dict(self.states[flow_uuid]), context.to_dict())

        def load_pending_feedback(self, flow_uuid: str) -> tuple[dict[str, Any], PendingFeedbackContext] | None:
            found = self.pending.get(flow_uuid)
            return (found[0], PendingFeedbackContext.from_dict(found[1])) if found else None

        def clear_pending_feedback(self, flow_uuid: str) -> None:
            self.pending.pop(flow_uuid, None)

    store = MemoryPersistence()
    pending = ContentPipeline(persistence=store).kickoff()
    assert isinstance(pending, HumanFeedbackPending) and pending.context.flow_id in store.pending

    async def webhook(flow_id: str, feedback: str) -> Any:
        flow = ContentPipeline.from_pending(flow_id, store)
        return await flow.resume_async(feedback)

    from crewgraph.checkpoint.lease import UnleasedStoreWarning

    with pytest.warns(UnleasedStoreWarning, match="MemoryPersistence cannot lease"):  # said, not silent
        result = asyncio.run(webhook(pending.context.flow_id, "approved"))
    assert result == {"status": "published", "feedback": "approved"}
    assert store.pending == {}


def test_flow_config_hitl_provider_and_console_default(monkeypatch: pytest.MonkeyPatch) -> None:
    class Scripted:
        def request_feedback(self, context: PendingFeedbackContext, flow: Flow) -> str:
            return "looks good"

    class Review(Flow):
        @start()
        @human_feedback(message="Please review this content:")
        def generate_content(self):
            return "This is AI-generated content that needs review."

        @listen(generate_content)
        def process_feedback(self, result: HumanFeedbackResult):
            return f"{result.output} -> {result.feedback}"

    original = flow_config.hitl_provider
    try:
        flow_config.hitl_provider = Scripted()
        assert Review().kickoff().endswith("-> looks good")
    finally:
        flow_config.hitl_provider = original
    monkeypatch.setattr("builtins.input", lambda prompt="": "typed at the console")
    assert Review().kickoff().endswith("-> typed at the console")


def test_unsupported_and_wrong_uses_are_named(storage_dir: Path) -> None:
    with pytest.raises(ValueError, match=r"learn=True\) is not supported"):
        human_feedback(message="m", learn=True)
    with pytest.raises(TypeError, match=r"request_feedback\(context, flow\)"):
        human_feedback(message="m", provider=42)
    with pytest.raises(ValueError, match=r"no flow run 'feedback'.*from_pending\(flow_id\)\.resume\(feedback\)"):
        ContentPipeline().resume("feedback")  # not loaded with from_pending: crewgraph's run-id form
    with pytest.raises(ValueError, match="nothing to resume"):
        ContentPipeline().resume()
    context = PendingFeedbackContext(flow_id="f", flow_class="m.C", method_name="m", method_output=1, message="?")
    again = PendingFeedbackContext.from_dict(context.to_dict())
    assert again == context


def _env(tmp: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(APPS)]),
        "CREWGRAPH_STORAGE_DIR": str(tmp / "store"),
        "FLOW_LOG": str(tmp / "log.txt"),
    }


def _run(tmp: Path, *args: str) -> list[str]:
    done = subprocess.run([sys.executable, str(APPS / "feedback_app.py"), *args], env=_env(tmp),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()


@pytest.mark.parametrize("kind", ["plain", "persisted"])
def test_pause_in_one_process_resume_in_another(tmp_path: Path, kind: str) -> None:
    [line] = _run(tmp_path, kind, "pause")
    flow_id, url = line.split("|")
    assert url == f"https://myapp.com/api/{flow_id}"
    result, history = _run(tmp_path, kind, "resume", flow_id, "approved")
    assert result == "Published! (approved: AI-generated content about flows)"
    assert history == "history=[('generate_content', 'approved')]"
    log = [line.split() for line in (tmp_path / "log.txt").read_text().splitlines()]
    steps = [step for _, step in log]
    assert steps == ["load", "generate", "notified", "publish"]  # nothing ran twice
    assert log[0][0] != log[-1][0]  # two processes
    store = SQLiteFlowPersistence(tmp_path / "store" / "flow_states.db")
    assert store.load_pending_feedback(flow_id) is None  # cleared
    if kind == "persisted":
        assert store.latest_run(flow_id)["status"] == "completed"  # the journaled run went on
