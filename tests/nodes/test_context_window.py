"""``respect_context_window``: a conversation that would overflow the model's window is
summarised (older turns) or trimmed instead of failing, before the turn when the model
reports its window and once after a server's "context length exceeded"."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.errors import LLMError
from crewgraph.nodes._context_window import (
    SUMMARY_PROMPT,
    USABLE_FRACTION,
    estimate_tokens,
    fit_messages,
    is_context_overflow,
)
from crewgraph.testing import FakeLLM, FakeRequest, FakeToolCall
from crewgraph.tools import tool

BIG = "x" * 1600  # ~400 tokens


@tool("Search")
def search(query: str) -> str:
    """Search the web."""
    return f"{query}: {BIG}"


class WindowedLLM(FakeLLM):
    """A fake model with a known context window; it refuses (like a server) anything larger."""

    def __init__(self, responses: Any, window: int, **kw: Any) -> None:
        super().__init__(responses, **kw)
        self.window = window

    def get_context_window_size(self) -> int:
        return self.window

    async def acall(self, messages: list[dict[str, Any]], **kw: Any) -> Any:
        if estimate_tokens(messages) > self.window:
            raise RuntimeError("Error code: 400 - context_length_exceeded")
        return await super().acall(messages, **kw)


def scripted(turns: list[Any], summary: Any = "Searched a and b; both said growth.") -> Any:
    """Replies to summary requests with ``summary`` and to agent turns from ``turns``."""
    queue = list(turns)

    def reply(request: FakeRequest) -> Any:
        if request.messages[0]["content"] == SUMMARY_PROMPT:
            return summary(request) if callable(summary) else summary
        return queue.pop(0)

    return reply


def researcher(llm: Any, **kw: Any) -> Agent:
    return Agent(role="Researcher", goal="Find facts", llm=llm, tools=[search], **kw)


def kickoff(agent: Agent) -> Any:
    task = Task(description="Research growth", expected_output="Facts", agent=agent)
    return Crew(agents=[agent], tasks=[task]).kickoff()


def test_older_turns_are_summarised_before_the_window_overflows() -> None:
    turns = [FakeToolCall("Search", {"query": "a"}), FakeToolCall("Search", {"query": "b"}),
             FakeToolCall("Search", {"query": "c"}), "growth everywhere"]
    llm = WindowedLLM(None, window=1200, default=scripted(turns))
    out = kickoff(researcher(llm))
    assert out.raw == "growth everywhere"
    summaries = [c for c in llm.calls if c.messages[0]["content"] == SUMMARY_PROMPT]
    assert summaries and "a: xxx" in summaries[0].prompt  # the oldest tool result was summarised
    budget = int(1200 * USABLE_FRACTION)
    agent_calls = [c for c in llm.calls if c.messages[0]["content"] != SUMMARY_PROMPT]
    assert all(estimate_tokens(c.messages) <= budget for c in agent_calls)
    last = agent_calls[-1].messages
    assert last[1]["content"].startswith("Current Task: Research growth")  # the task stays
    assert any("Summary of the earlier work on this task" in str(m["content"]) and "both said growth" in
               str(m["content"]) for m in last)
    assert out.graph is not None
    step = out.graph.graph.nodes["t1_research_growth.agent"]
    assert step["record"].info["context_compressions"] >= 1


def test_a_failed_summary_falls_back_to_dropping_the_oldest_turns() -> None:
    turns = [FakeToolCall("Search", {"query": "a"}), FakeToolCall("Search", {"query": "b"}),
             FakeToolCall("Search", {"query": "c"}), "done"]

    def broken(request: FakeRequest) -> Any:
        raise RuntimeError("summariser down")

    llm = WindowedLLM(None, window=1200, default=scripted(turns, summary=broken))
    assert kickoff(researcher(llm)).raw == "done"
    last = [c for c in llm.calls if c.messages[0]["content"] != SUMMARY_PROMPT][-1].messages
    assert any("older messages were removed to fit the model's context window" in str(m["content"]) for m in last)
    assert not any(m.get("role") == "tool" and "a: " in str(m["content"]) for m in last)


def test_a_servers_overflow_error_shortens_the_conversation_once() -> None:
    # No known window: the first refusal from the "server" triggers the shortening.
    class Refusing(FakeLLM):
        limit = 700

        async def acall(self, messages: list[dict[str, Any]], **kw: Any) -> Any:
            if estimate_tokens(messages) > self.limit:
                raise RuntimeError("This model's maximum context length is 700 tokens")
            return await super().acall(messages, **kw)

    turns = [FakeToolCall("Search", {"query": "a"}), FakeToolCall("Search", {"query": "b"}), "done"]
    llm = Refusing(None, default=scripted(turns))
    assert kickoff(researcher(llm)).raw == "done"
    assert any(c.messages[0]["content"] == SUMMARY_PROMPT for c in llm.calls)


def test_without_respect_context_window_an_overflow_is_a_clear_final_error() -> None:
    llm = WindowedLLM(None, window=300, default=scripted([FakeToolCall("Search", {"query": "a"}), "done"]))
    with pytest.raises(LLMError, match=r"Agent 'Researcher' on task 'Research growth'.*respect_context_window=False"):
        kickoff(researcher(llm, respect_context_window=False))
    assert len(llm.calls) == 1  # the refused turn is not recorded, and the step was not retried from scratch


def test_fit_keeps_the_head_and_tool_calls_with_their_results() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are R."},
        {"role": "user", "content": "Current Task: t"},
    ]
    for i in range(6):
        messages.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "Search", "arguments": "{}"}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "name": "Search", "content": BIG})

    async def summarize(text: str) -> str:
        return "short summary"

    fitted = asyncio.run(fit_messages(messages, 1000, summarize))
    assert fitted is not None and estimate_tokens(fitted) <= 1000
    assert fitted[:2] == messages[:2]
    assert fitted[2]["content"].startswith("Summary of the earlier work")
    ids = {c["id"] for m in fitted if m.get("tool_calls") for c in m["tool_calls"]}
    assert {m["tool_call_id"] for m in fitted if m.get("role") == "tool"} <= ids  # no orphan results
    assert fitted[-1] == messages[-1]
    assert asyncio.run(fit_messages(messages[:2], 1000, summarize)) is None  # already fits


def test_fit_cuts_a_single_huge_message_in_its_middle() -> None:
    messages = [{"role": "system", "content": "S"}, {"role": "user", "content": "start " + "y" * 20000 + " end"}]
    fitted = asyncio.run(fit_messages(messages, 1000, None))
    assert fitted is not None and estimate_tokens(fitted) <= 1000
    body = fitted[1]["content"]
    assert body.startswith("start ") and body.endswith(" end") and "characters cut" in body


@pytest.mark.parametrize(
    "message",
    ["Error code: 400 - {'error': {'code': 'context_length_exceeded'}}",
     "This model's maximum context length is 8192 tokens", "prompt is too long: 210000 tokens > 200000"],
)
def test_overflow_errors_are_recognised(message: str) -> None:
    assert is_context_overflow(RuntimeError(message))
    assert not is_context_overflow(RuntimeError("rate limit exceeded"))
