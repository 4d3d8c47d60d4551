"""``context.request_human_input(...)`` in a hook: the crew's input_provider answers, else the
terminal; a provider that pauses is refused (a hook cannot pause mid-call)."""

from __future__ import annotations

import io
import logging
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.errors import ConfigurationError
from crewgraph.hooks import (
    LLMCallBlockedError,
    LLMCallHookContext,
    ToolCallHookContext,
    before_llm_call,
    before_tool_call,
)
from crewgraph.testing import FakeLLM
from crewgraph.testing.fake_llm import FakeToolCall
from crewgraph.tools import tool


@tool("wipe")
def wipe(path: str) -> str:
    """Delete a path."""
    return f"deleted {path}"


def _crew(llm: FakeLLM, provider: Any, tools: list[Any] | None = None) -> Crew:
    clerk = Agent(role="Clerk", goal="Tidy", backstory="Tidies.", tools=tools or [], llm=llm, max_retry_limit=0)
    task = Task(description="Tidy /tmp/x", expected_output="What was done", agent=clerk)
    return Crew(agents=[clerk], tasks=[task], input_provider=provider)


def test_an_approval_gate_before_a_tool_asks_the_crews_input_provider() -> None:
    asked: list[str] = []

    def person(question: str) -> str:
        asked.append(question)
        return "  no  "

    @before_tool_call
    def approve(context: ToolCallHookContext) -> bool | None:
        answer = context.request_human_input(f"Run {context.tool_name}({context.tool_input})?",
                                             default_message="Type 'no' to skip:")
        return False if answer == "no" else None

    llm = FakeLLM([FakeToolCall("wipe", {"path": "/tmp/x"}), "left it alone"])
    out = _crew(llm, person, [wipe]).kickoff()
    assert out.raw == "left it alone"
    assert asked == ["Run wipe({'path': '/tmp/x'})?\nType 'no' to skip:"]
    tool_texts = [str(m["content"]) for m in llm.calls[-1].messages if m.get("role") == "tool"]
    assert len(tool_texts) == 1 and "deleted" not in tool_texts[0]  # the person said no: blocked


def test_a_model_call_gate_reads_the_terminal_without_a_provider(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("no\n"))

    @before_llm_call
    def gate(context: LLMCallHookContext) -> bool | None:
        return False if context.request_human_input("Allow this LLM call?") == "no" else None

    with pytest.raises(LLMCallBlockedError, match="gate"):
        _crew(FakeLLM(["never sent"]), None).kickoff()
    shown = capsys.readouterr().out
    assert "Allow this LLM call?" in shown and "Press Enter to continue, or provide feedback:" in shown


def test_closed_stdin_answers_like_enter_and_says_so(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    context = LLMCallHookContext(messages=[])
    with caplog.at_level(logging.WARNING, logger="crewgraph.hooks"):
        assert context.request_human_input("Continue?") == ""
    assert "stdin is closed" in caplog.text


def test_an_ask_provider_answers_and_a_pausing_one_is_refused_by_name() -> None:
    class Desk:
        def ask(self, question: str, *, timeout: float | None = None) -> str:
            return f"seen: {question.splitlines()[0]}"

    assert ToolCallHookContext(tool_name="t", tool_input={}, input_provider=Desk()).request_human_input(
        "Go?") == "seen: Go?"
    for pausing in ("persisted", type("Paused", (), {"pauses": True})()):
        with pytest.raises(ConfigurationError, match="cannot pause in the middle of a call"):
            LLMCallHookContext(messages=[], input_provider=pausing).request_human_input("Go?")
    with pytest.raises(ConfigurationError, match="cannot answer request_human_input"):
        LLMCallHookContext(messages=[], input_provider=42).request_human_input("Go?")
