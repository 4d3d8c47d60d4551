"""Every tool result a model reads is capped (tool > agent > default) with a note saying so."""

from __future__ import annotations

import json

from crewgraph import Agent, Crew, Task
from crewgraph.testing import FakeLLM
from crewgraph.testing.fake_llm import FakeToolCall
from crewgraph.tools import tool
from crewgraph.tools._result_cap import DEFAULT_MAX_TOOL_RESULT_CHARS

HUGE = 20_000_000  # a 20 MB result became a 19 MB request


@tool("dump")
def dump() -> str:
    """Return a very large page."""
    return "x" * HUGE


@tool("small_dump", max_result_chars=500)
def small_dump() -> str:
    """Return a large page, capped by the tool itself."""
    return "y" * 10_000


def _tool_message(llm: FakeLLM) -> str:
    request = llm.calls[1]
    tool_messages = [m for m in request.messages if m.get("role") == "tool"]
    assert tool_messages, request.messages
    return str(tool_messages[-1]["content"])


def _run(tool_obj: object, **agent_options: object) -> FakeLLM:
    llm = FakeLLM([FakeToolCall(getattr(tool_obj, "name", ""), {}), "done"])
    agent = Agent(role="Reader", goal="Read", backstory="Reads.", tools=[tool_obj], llm=llm, **agent_options)
    task = Task(description="Read the page", expected_output="A summary", agent=agent)
    assert Crew(agents=[agent], tasks=[task]).kickoff().raw == "done"
    return llm


def test_the_default_cap_applies_to_every_result() -> None:
    text = _tool_message(_run(dump))
    assert len(text) < DEFAULT_MAX_TOOL_RESULT_CHARS + 300
    assert text.startswith("x" * 1000)
    assert f"{HUGE - DEFAULT_MAX_TOOL_RESULT_CHARS} more characters not shown" in text
    assert "truncated" in text


def test_the_agent_sets_its_own_cap() -> None:
    text = _tool_message(_run(dump, max_tool_result_chars=1000))
    assert text.startswith("x" * 1000) and text[1000:].startswith("\n[... tool result truncated")


def test_the_tools_cap_wins_over_the_agents() -> None:
    text = _tool_message(_run(small_dump, max_tool_result_chars=5000))
    assert text.startswith("y" * 500) and text[500:].startswith("\n[... tool result truncated: 9500")


def test_a_short_result_is_untouched_and_the_note_is_valid_text() -> None:
    @tool("echo")
    def echo() -> str:
        """Return a short text."""
        return json.dumps({"ok": True})

    assert _tool_message(_run(echo)) == '{"ok": true}'


def test_a_coworkers_answer_is_capped_like_a_tool_result() -> None:
    delegate = "Delegate_work_to_coworker"
    lead_llm = FakeLLM([FakeToolCall(delegate, {"task": "t", "context": "", "coworker": "researcher"}), "final"])
    researcher = Agent(role="Researcher", goal="g", llm=FakeLLM(["z" * 5000]))
    lead = Agent(role="Lead", goal="g", llm=lead_llm, allow_delegation=True, max_tool_result_chars=100)
    task = Task(name="write", description="Write", expected_output="x", agent=lead)
    assert Crew(agents=[lead, researcher], tasks=[task]).kickoff().raw == "final"
    text = _tool_message(lead_llm)
    assert text.startswith("z" * 100) and text[100:].startswith("\n[... tool result truncated: 4900")
