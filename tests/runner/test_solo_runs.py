"""Tasks and agents run on their own: ``Task.execute_sync/async``, ``Agent.kickoff[_async]``,
``LiteAgent`` — all on the one run path (a one-task crew: same graph nodes, same scheduler)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel

from crewgraph import Agent, Task
from crewgraph.events import TaskCompletedEvent, crewgraph_event_bus
from crewgraph.lite_agent import LiteAgent, LiteAgentOutput
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import tool


@tool("lookup")
def lookup(term: str) -> str:
    """Look a term up."""
    return f"{term} means 42"


class Answer(BaseModel):
    value: int


def test_execute_sync_runs_the_task_and_sets_its_output() -> None:
    llm = FakeLLM(["the summary"])
    task = Task(name="sum", description="Summarise", expected_output="a line", agent=Agent(role="R", goal="g", llm=llm))
    seen: list[str] = []
    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.on(TaskCompletedEvent)(lambda source, event: seen.append(event.task_name))
        out = task.execute_sync()
    assert out.raw == "the summary" and task.output is out
    assert seen == ["sum"]
    assert "Current Task: Summarise" in llm.calls[0].messages[1]["content"]


def test_execute_sync_with_agent_context_and_tools_goes_through_tool_nodes() -> None:
    llm = FakeLLM([FakeToolCall("lookup", {"term": "x"}), "x is 42"])
    other = Agent(role="Other", goal="g", llm=llm)
    task = Task(description="What is x?", expected_output="a number")  # no agent of its own
    with pytest.raises(ValueError, match="has no agent assigned"):
        task.execute_sync()
    out = task.execute_sync(agent=other, context="x is a letter", tools=[lookup])
    assert out.raw == "x is 42" and out.agent == "Other"
    prompt = llm.calls[0].messages[1]["content"]
    assert "This is the context you're working with:\nx is a letter" in prompt
    assert any(m.get("role") == "tool" and "x means 42" in str(m.get("content")) for m in llm.calls[1].messages)
    assert task.tools == [] and task.output is out  # the definition itself is unchanged


def test_execute_sync_keeps_guardrails_and_structured_output() -> None:
    llm = FakeLLM(['{"value": 7}', '{"value": 42}'])

    def is_answer(output: Any) -> tuple[bool, Any]:
        return (output.pydantic.value == 42, "that is not the answer")

    task = Task(description="Answer", expected_output="json", output_pydantic=Answer, guardrail=is_answer,
                agent=Agent(role="R", goal="g", llm=llm))
    out = task.execute_sync()
    assert out.pydantic == Answer(value=42)
    assert "that is not the answer" in llm.calls[1].messages[-1]["content"]


def test_execute_async_returns_a_future() -> None:
    task = Task(description="Do", expected_output="x", agent=Agent(role="R", goal="g", llm=FakeLLM(["done"])))
    future = task.execute_async()
    assert future.result(timeout=30).raw == "done"
    assert task.output is not None and task.output.raw == "done"


def test_agent_kickoff_text_and_messages() -> None:
    llm = FakeLLM(["hello there", "you said hi twice"])
    agent = Agent(role="Greeter", goal="greet", backstory="Friendly.", llm=llm)
    out = agent.kickoff("Say hello")
    assert isinstance(out, LiteAgentOutput)
    assert out.raw == "hello there" and out.agent_role == "Greeter" and out.pydantic is None
    assert llm.calls[0].messages[0]["role"] == "system" and "You are Greeter" in llm.calls[0].messages[0]["content"]
    assert llm.calls[0].messages[1] == {"role": "user", "content": "Say hello"}
    assert out.messages[-1] == {"role": "assistant", "content": "hello there"}
    assert out.usage_metrics is not None and out.usage_metrics["successful_requests"] == 1
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
               {"role": "user", "content": "hi again"}]
    second = agent.kickoff(history)
    assert second.raw == "you said hi twice"
    assert [m["content"] for m in llm.calls[1].messages[1:]] == ["hi", "hello", "hi again"]


def test_agent_kickoff_response_format_tools_and_failures() -> None:
    @tool("broken")
    def broken(q: str) -> str:
        """Always fails."""
        raise RuntimeError("service down")

    llm = FakeLLM([FakeToolCall("broken", {"q": "a"}), '{"value": 3}'])
    agent = Agent(role="Counter", goal="count", llm=llm, tools=[broken])
    out = agent.kickoff("How many?", response_format=Answer)
    assert out.pydantic == Answer(value=3) and out.to_dict() == {"value": 3}
    assert "JSON schema" in llm.calls[0].messages[0]["content"]
    assert out.has_tool_failures and "service down" in str(out.tool_failures[0])


def test_agent_kickoff_async_and_bad_messages() -> None:
    agent = Agent(role="R", goal="g", llm=FakeLLM(["async answer"]))
    assert asyncio.run(agent.kickoff_async("hi")).raw == "async answer"
    with pytest.raises(ValueError, match="empty"):
        agent.kickoff("  ")
    with pytest.raises(ValueError, match=r"messages\[0\] must be a dict with 'role'"):
        agent.kickoff([{"content": "no role"}])


def test_lite_agent_is_an_agent_with_a_default_response_format() -> None:
    lite = LiteAgent(role="R", goal="g", llm=FakeLLM(['{"value": 1}']), response_format=Answer)
    assert isinstance(lite, Agent)
    assert lite.kickoff("count").pydantic == Answer(value=1)
