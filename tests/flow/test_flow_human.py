"""Flow.ask with input providers, and @human_feedback (plain, routed, persisted)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from crewgraph.errors import ConfigurationError
from crewgraph.flow import Flow, HumanFeedbackPending, PendingFeedbackContext, listen, start
from crewgraph.flow.human_feedback import (
    ConsoleInputProvider,
    HumanFeedbackResult,
    PersistedInputProvider,
    human_feedback,
)
from crewgraph.flow.persistence import persist
from crewgraph.testing import FakeLLM


def test_ask_uses_a_callable_provider() -> None:
    asked: list[str] = []

    class F(Flow[dict]):
        input_provider = staticmethod(lambda q: asked.append(q) or "Ada")

        @start()
        def greet(self) -> str:
            return f"hello {self.ask('Your name?')}"

    assert F().kickoff() == "hello Ada"
    assert asked == ["Your name?"]


def test_console_is_the_default_provider(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("blue\n"))

    class F(Flow):
        @start()
        def color(self) -> str:
            return self.ask("Favourite color?", timeout=5)

    assert F().kickoff() == "blue"
    assert "Favourite color?" in capsys.readouterr().out


def test_console_wait_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    class Never(io.StringIO):
        def readline(self, *args: Any) -> str:
            import time

            time.sleep(1)
            return ""

    monkeypatch.setattr("sys.stdin", Never())
    with pytest.raises(TimeoutError, match="no answer"):
        ConsoleInputProvider().ask("?", timeout=0.05)


def test_persisted_provider_on_an_unpersisted_flow_is_a_clear_error() -> None:
    class F(Flow):
        input_provider = "persisted"

        @start()
        def a(self) -> str:
            return self.ask("?")

    with pytest.raises(ConfigurationError, match="not persisted, so it cannot pause"):
        F().kickoff()


class Scripted:
    """A feedback provider as CrewAI's docs write one: ``request_feedback(context, flow)``."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.shown: list[str] = []

    def request_feedback(self, context: PendingFeedbackContext, flow: Flow) -> str:
        self.shown.append(f"{context.message}\n\n{context.method_output}")
        return self.answers.pop(0)


def test_human_feedback_without_emit_passes_a_result_on() -> None:
    class F(Flow):
        @start()
        @human_feedback(message="Please review:", metadata={"team": "docs"}, provider=Scripted("looks good"))
        def generate(self) -> str:
            return "draft text"

        @listen(generate)
        def process(self, result: HumanFeedbackResult) -> str:
            return f"{result.output} / {result.feedback} / {result.method_name} / {result.metadata['team']}"

    flow = F()
    assert flow.kickoff() == "draft text / looks good / generate / docs"
    assert flow.last_human_feedback is not None and flow.last_human_feedback.outcome is None
    assert len(flow.human_feedback_history) == 1


def test_human_feedback_with_emit_routes_on_the_llm_classified_outcome() -> None:
    llm = FakeLLM(['{"outcome": "needs_revision"}'])
    reviewer = Scripted("add more detail please")

    class F(Flow[dict]):
        @start()
        def begin(self) -> str:
            return "v1"

        @listen("needs_revision")
        def revise(self, result: HumanFeedbackResult) -> str:
            self.state["round"] = self.state.get("round", 1) + 1
            return f"v{self.state['round']}"

        @listen(begin)
        @human_feedback(message="Review:", emit=["approved", "needs_revision"], llm=llm, provider=reviewer)
        def review(self, draft: str) -> str:
            return draft

        @listen("approved")
        def done(self, result: HumanFeedbackResult) -> str:
            return f"approved {result.output} ({result.feedback})"

    flow = F()
    assert flow.kickoff() == "v2"
    assert reviewer.shown == ["Review:\n\nv1"]
    assert flow.last_human_feedback is not None and flow.last_human_feedback.outcome == "needs_revision"
    assert "needs_revision" in llm.calls[0].prompt


def test_exact_answers_and_empty_feedback_need_no_llm() -> None:
    class F(Flow):
        @start()
        @human_feedback(message="OK?", emit=["approved", "rejected"], default_outcome="rejected",
                        provider=Scripted("Approved", ""))
        def review(self) -> str:
            return "content"

        @listen("approved")
        def yes(self) -> str:
            return "yes"

        @listen("rejected")
        def no(self) -> str:
            return "no"

    assert F().kickoff() == "yes"
    assert F().kickoff() == "no"


def test_human_feedback_definition_errors() -> None:
    with pytest.raises(ValueError, match="needs llm="):
        human_feedback(message="m", emit=["a", "b"])
    with pytest.raises(ValueError, match="must be one of"):
        human_feedback(message="m", emit=["a"], default_outcome="z")
    with pytest.raises(ValueError, match="directly above the method"):
        human_feedback(message="m")(start()(lambda self: 1))


def test_persisted_feedback_pauses_and_the_method_does_not_run_again(storage_dir: Path) -> None:
    runs: list[str] = []

    @persist()
    class F(Flow[dict]):
        @start()
        @human_feedback(message="Ship it?", emit=["ship", "hold"], default_outcome="hold", llm=FakeLLM([]),
                        provider=PersistedInputProvider())
        def build(self) -> str:
            runs.append("build")
            return "release 1.0"

        @listen("ship")
        def do_ship(self, result: HumanFeedbackResult) -> str:
            return f"shipped {result.output}"

        @listen("hold")
        def do_hold(self) -> str:
            return "held"

    pending = F().kickoff()
    assert isinstance(pending, HumanFeedbackPending) and pending.run_id is not None
    assert pending.context.message == "Ship it?" and pending.context.method_output == "release 1.0"
    assert F.resume(pending.run_id, "ship") == "shipped release 1.0"
    assert runs == ["build"]  # its output was stored with the question
