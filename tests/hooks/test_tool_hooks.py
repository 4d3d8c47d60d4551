"""before_tool_call / after_tool_call: change arguments (validated like the model's), block
with a reason the agent reads, rewrite results, filtered by tool and agent."""

from __future__ import annotations

from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.errors import CallbackError
from crewgraph.events import crewgraph_event_bus
from crewgraph.events.tool_events import ToolUsageFinishedEvent
from crewgraph.hooks import (
    HookAborted,
    ToolCallHookContext,
    after_tool_call,
    before_tool_call,
    register_before_tool_call_hook,
)
from crewgraph.testing import FakeLLM
from crewgraph.testing.fake_llm import FakeToolCall
from crewgraph.tools import tool

RAN: list[str] = []


@tool("lookup")
def lookup(name: str) -> str:
    """Look a person up."""
    RAN.append(name)
    return f"{name} lives at 1 Main St, phone 555-0101"


@tool("wipe")
def wipe(path: str) -> str:
    """Delete a path."""
    RAN.append(f"wipe {path}")
    return "deleted"


def _run(*calls: FakeToolCall, cache: bool = False) -> tuple[FakeLLM, Any]:
    """Run a one-task crew whose model makes ``calls``; the model and the scheduler's run result."""
    RAN.clear()
    llm = FakeLLM([*calls, "done"])
    clerk = Agent(role="Clerk", goal="Find", backstory="Finds.", tools=[lookup, wipe], llm=llm)
    task = Task(description="Find Ann", expected_output="Facts", agent=clerk)
    crew = Crew(agents=[clerk], tasks=[task], cache=cache)
    assert crew.kickoff().raw == "done"
    return llm, crew._last_run


def _tool_texts(llm: FakeLLM) -> list[str]:
    return [str(m["content"]) for m in llm.calls[-1].messages if m.get("role") == "tool"]


def test_a_before_hook_changes_the_arguments_the_tool_gets() -> None:
    @before_tool_call
    def normalise(context: ToolCallHookContext) -> None:
        context.tool_input["name"] = context.tool_input["name"].title()

    _run(FakeToolCall("lookup", {"name": "ann"}))
    assert RAN == ["Ann"]


def test_changed_arguments_are_validated_like_the_models() -> None:
    register_before_tool_call_hook(lambda context: context.tool_input.pop("name"))
    llm, _ = _run(FakeToolCall("lookup", {"name": "ann"}))
    assert RAN == []
    assert "name" in _tool_texts(llm)[0] and "Field required" in _tool_texts(llm)[0]


def test_a_blocked_call_does_not_run_and_the_agent_reads_why() -> None:
    after: list[bool] = []

    @before_tool_call(tools=["wipe"])
    def no_deletes(context: ToolCallHookContext) -> None:
        raise HookAborted("deleting files is not allowed")

    @after_tool_call
    def watch(context: ToolCallHookContext) -> None:
        after.append(context.blocked)

    llm, _ = _run(FakeToolCall("wipe", {"path": "/"}), FakeToolCall("lookup", {"name": "Ann"}))
    assert RAN == ["Ann"]  # lookup is not filtered, wipe never ran
    texts = _tool_texts(llm)
    assert texts[0] == "Tool execution blocked by hook. Tool: wipe. Reason: deleting files is not allowed"
    assert after == [True, False]


def test_returning_false_blocks_too() -> None:
    register_before_tool_call_hook(lambda context: False)
    llm, _ = _run(FakeToolCall("lookup", {"name": "Ann"}))
    assert RAN == [] and _tool_texts(llm)[0] == "Tool execution blocked by hook. Tool: lookup."


def test_an_after_hook_redacts_what_the_agent_reads_and_the_graph_keeps() -> None:
    raw_seen: list[Any] = []

    @after_tool_call(tools=["lookup"], agents=["Clerk"])
    def redact(context: ToolCallHookContext) -> str:
        raw_seen.append(context.raw_tool_result)
        assert context.agent is not None and context.agent.role == "Clerk"
        return (context.tool_result or "").replace("555-0101", "[phone]")

    finished: list[ToolUsageFinishedEvent] = []
    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.on(ToolUsageFinishedEvent)(lambda source, event: finished.append(event))
        llm, _ = _run(FakeToolCall("lookup", {"name": "Ann"}))
    assert _tool_texts(llm) == ["Ann lives at 1 Main St, phone [phone]"]
    assert raw_seen == ["Ann lives at 1 Main St, phone 555-0101"]
    assert [e.output for e in finished] == ["Ann lives at 1 Main St, phone [phone]"]  # what listeners record


def test_after_hooks_rewrite_cached_results_too() -> None:
    register = after_tool_call(lambda context: (context.tool_result or "").upper())
    assert callable(register)
    llm, _ = _run(FakeToolCall("lookup", {"name": "Ann"}), FakeToolCall("lookup", {"name": "Ann"}), cache=True)
    assert RAN == ["Ann"]
    first, second = _tool_texts(llm)
    assert first == "ANN LIVES AT 1 MAIN ST, PHONE 555-0101"
    # The repeat is answered from the first (already rewritten) result, with a reminder: the raw
    # text never reaches the model.
    assert second.startswith("You already called lookup") and first in second and "Ann lives" not in second


def test_a_broken_tool_hook_fails_the_run_naming_it() -> None:
    @after_tool_call
    def broken(context: ToolCallHookContext) -> None:
        raise RuntimeError("bad redactor")

    with pytest.raises(CallbackError, match=r"after_tool_call hook .*broken.* raised RuntimeError: bad redactor"):
        _run(FakeToolCall("lookup", {"name": "Ann"}))
