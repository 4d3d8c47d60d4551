"""Bad input ends in a recorded failure or a clear error naming what is wrong, never a
silent success: output files that cannot be written, callbacks that raise, models that
call tools when none are offered, guardrails that misbehave, tools returning values
with no text form, and arguments a tool does not take.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.errors import (
    ConfigurationError,
    CrewGraphError,
    GuardrailError,
    LLMError,
    MaxIterationsError,
)
from crewgraph.outputs import CrewOutput, TaskOutput
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import tool
from crewgraph.tools.tool_failure import ToolFailureReason


@tool("add")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _crew(llm: FakeLLM, tools: list[Any] | None = None, **task_kw: Any) -> Crew:
    agent = Agent(role="Clerk", goal="Do the work", llm=llm, tools=tools or [], max_iter=task_kw.pop("max_iter", 25))
    task = Task(description="Do it", expected_output="a result", agent=agent, **task_kw)
    return Crew(agents=[agent], tasks=[task])


def _kickoff(crew: Crew) -> CrewOutput:
    out = crew.kickoff()
    assert isinstance(out, CrewOutput)
    return out


def _tool_messages(llm: FakeLLM) -> list[str]:
    return [str(m["content"]) for m in llm.calls[-1].messages if m.get("role") == "tool"]


# --- output files and callbacks ---------------------------------------------------------


def test_unwritable_output_file_fails_the_run_naming_task_field_and_path(tmp_path: Path) -> None:
    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file, not a folder", encoding="utf-8")
    crew = _crew(FakeLLM(["done"]), output_file=str(blocker / "out.md"))
    with pytest.raises(ConfigurationError) as info:
        crew.kickoff()
    message = str(info.value)
    assert "task 'Do it'" in message and "output_file" in message
    assert str(blocker / "out.md") in message and str(blocker) in message


def test_output_file_that_is_a_directory_is_a_clear_error(tmp_path: Path) -> None:
    crew = _crew(FakeLLM(["done"]), output_file=str(tmp_path))
    with pytest.raises(ConfigurationError, match="cannot write its output_file"):
        crew.kickoff()


def test_a_raising_task_callback_fails_the_run_instead_of_vanishing() -> None:
    def callback(output: TaskOutput) -> None:
        raise RuntimeError("callback broke")

    crew = _crew(FakeLLM(["done"]), callback=callback)
    with pytest.raises(CrewGraphError, match="callback broke"):
        crew.kickoff()


# --- tools asked for on a turn that offered none ------------------------------------------


def test_agent_without_tools_calling_one_gets_a_recorded_unknown_tool_failure() -> None:
    llm = FakeLLM([FakeToolCall("search", {"q": "x"}), "answer without tools"])
    out = _kickoff(_crew(llm))
    assert out.raw == "answer without tools"
    assert [r.reason for r in out.tool_failures] == [ToolFailureReason.UNKNOWN_TOOL]
    assert "no tools are available" in _tool_messages(llm)[0]


def test_after_max_iter_a_tool_call_without_text_is_refused_once_then_answered() -> None:
    call = FakeToolCall("add", {"a": 1, "b": 2})
    llm = FakeLLM([call, call, "3"])
    out = _kickoff(_crew(llm, [add], max_iter=1))
    assert out.raw == "3"  # not the empty text of the refused turn
    assert llm.calls[-1].tools == []
    assert "No tools can be used now" in str(llm.calls[-1].messages[-1]["content"])


def test_a_model_that_keeps_calling_tools_after_max_iter_is_an_error_naming_agent_and_task() -> None:
    call = FakeToolCall("add", {"a": 1, "b": 2})
    with pytest.raises(MaxIterationsError) as info:
        _crew(FakeLLM([call, call, call]), [add], max_iter=1).kickoff()
    message = str(info.value)
    assert "'Clerk'" in message and "'Do it'" in message and "max_iter=1" in message


def test_text_protocol_action_after_max_iter_is_not_taken_as_the_final_answer() -> None:
    call = FakeToolCall("add", {"a": 1, "b": 2})
    llm = FakeLLM([call, call, "Final Answer: 3"], function_calling=False)
    out = _kickoff(_crew(llm, [add], max_iter=1))
    assert out.raw == "3"
    assert "No tools can be used now" in str(llm.calls[-1].messages[-1]["content"])


# --- guardrails -----------------------------------------------------------------------


def test_guardrail_returning_the_wrong_shape_names_task_and_guardrail() -> None:
    def checks_length(output):  # type: ignore[no-untyped-def]
        return "yes"

    with pytest.raises(GuardrailError) as info:
        _crew(FakeLLM(["done"]), guardrail=checks_length).kickoff()
    assert info.value.task == "Do it"
    assert "'checks_length' of task 'Do it' must return a tuple (bool, Any)" in str(info.value)


def test_a_failing_judge_model_is_an_error_not_feedback_for_the_agent() -> None:
    llm = FakeLLM(["short", LLMError("401 unauthorized", status_code=401)])
    with pytest.raises(GuardrailError, match="could not be judged: 401 unauthorized"):
        _crew(llm, guardrail="must be long").kickoff()
    assert len(llm.calls) == 2  # the agent was not sent back to work on the judge's error


# --- what tools return and what they are sent ------------------------------------------------


@tool("numbers")
def numbers() -> str:
    """Return some numbers."""
    return (i for i in range(3))  # type: ignore[return-value]


@tool("blob")
def blob(utf8: bool) -> bytes:
    """Return bytes."""
    return "grüße".encode() if utf8 else b"\x00\xff\xfe"


def test_a_result_with_no_text_form_is_a_recorded_failure() -> None:
    llm = FakeLLM([FakeToolCall("numbers", {}), "ok"])
    out = _kickoff(_crew(llm, [numbers]))
    assert [r.reason for r in out.tool_failures] == [ToolFailureReason.EXCEPTION]
    assert "generator object, which has no text form" in _tool_messages(llm)[0]


def test_bytes_are_decoded_when_text_and_a_failure_when_binary() -> None:
    llm = FakeLLM([[FakeToolCall("blob", {"utf8": True}), FakeToolCall("blob", {"utf8": False})], "ok"])
    out = _kickoff(_crew(llm, [blob]))
    first, second = _tool_messages(llm)
    assert first == "grüße"
    assert "3 bytes of binary data" in second
    assert len(out.tool_failures) == 1


def test_an_argument_the_tool_does_not_take_is_refused_naming_it() -> None:
    llm = FakeLLM([FakeToolCall("add", {"a": 1, "b": 2, "c": 3}), "ok"])
    out = _kickoff(_crew(llm, [add]))
    assert [r.reason for r in out.tool_failures] == [ToolFailureReason.INVALID_INPUT]
    assert "field 'c': Extra inputs are not permitted" in _tool_messages(llm)[0]
    assert add.to_spec().parameters["additionalProperties"] is False


# --- the scheduler never loses a finish-hook error -------------------------------------------


def test_scheduler_raises_an_error_from_a_finish_hook() -> None:
    from crewgraph.runtime import Scheduler

    crew = _crew(FakeLLM(["done"]))
    graph = crew.compile()

    def hook(node: Any, output: Any) -> None:
        raise OSError("disk full")

    scheduler = Scheduler(graph, on_node_finished=hook)
    with pytest.raises(CrewGraphError, match="disk full") as info:
        asyncio.run(scheduler.run())
    failed = [r for r in scheduler.records.values() if r.status == "failed"]
    assert failed and failed[0].error == "OSError: disk full"
    assert info.value.__cause__ is not None


@pytest.fixture(autouse=True)
def _no_leaked_task_errors(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """An error raised inside a node task must surface, not be logged as never retrieved."""
    yield
    assert "exception was never retrieved" not in caplog.text


# --- tool lists -------------------------------------------------------------------------


def test_two_tools_under_one_model_facing_name_are_a_definition_error() -> None:
    from pydantic import ValidationError

    @tool("Search docs")
    def first(q: str) -> str:
        """Search one index."""
        return "one"

    @tool("Search_docs")
    def second(q: str) -> str:
        """Search another index."""
        return "two"

    with pytest.raises(ValidationError) as info:
        Agent(role="R", goal="G", tools=[first, second])
    assert "tools[1] ('Search_docs') and tools[0] ('Search docs')" in str(info.value)
    assert "'Search_docs'" in str(info.value)
    assert Agent(role="R", goal="G", tools=[first, first]).tools == [first]  # one tool listed twice


# --- empty answers ----------------------------------------------------------------------


def test_an_empty_final_answer_is_asked_for_again() -> None:
    llm = FakeLLM(["", "the answer"])
    out = _kickoff(_crew(llm))
    assert out.raw == "the answer"
    assert "Your reply was empty" in str(llm.calls[-1].messages[-1]["content"])
    assert not any(m.get("role") == "assistant" and not m.get("content") for m in llm.calls[-1].messages)


def test_two_empty_answers_are_an_error_naming_agent_and_task() -> None:
    with pytest.raises(LLMError, match="Agent 'Clerk' on task 'Do it': the model gave an empty final answer"):
        _crew(FakeLLM(["", "  "])).kickoff()


# --- a rejected attempt still counts ------------------------------------------------------


def test_a_guardrail_redo_keeps_the_rejected_attempts_usage_and_tool_failures() -> None:
    @tool("flaky")
    def flaky() -> str:
        """Fails."""
        raise RuntimeError("kaput")

    def long_enough(output: TaskOutput) -> tuple[bool, Any]:
        return (len(output.raw) > 2, output.raw if len(output.raw) > 2 else "too short")

    llm = FakeLLM([FakeToolCall("flaky", {}), "a", "abc"])
    out = _kickoff(_crew(llm, [flaky], guardrail=long_enough))
    task = out.tasks_output[0]
    assert task.raw == "abc"
    assert [r.tool_name for r in task.tool_failures] == ["flaky"]
    assert out.has_tool_failures
    assert task.token_usage.successful_requests == 3 == out.token_usage.successful_requests


def test_a_judges_tokens_count_for_the_task() -> None:
    llm = FakeLLM(["a long answer", '{"valid": true}'])
    out = _kickoff(_crew(llm, guardrail="must be an answer"))
    assert out.tasks_output[0].token_usage.successful_requests == 2 == out.token_usage.successful_requests


def test_a_misspelled_tool_option_is_an_error_not_ignored() -> None:
    with pytest.raises(TypeError, match=r"unknown option\(s\) result_as_anwser; tool options are: .*result_as_answer"):
        tool("publish", result_as_anwser=True)
    assert tool("publish", description="Publish it.", max_usage_count=2)(lambda text: text).max_usage_count == 2


def test_an_async_guardrail_is_awaited() -> None:
    async def long_enough(output: TaskOutput) -> tuple[bool, Any]:
        await asyncio.sleep(0)
        return (len(output.raw) > 2, output.raw if len(output.raw) > 2 else "too short")

    llm = FakeLLM(["a", "abc"])
    assert _kickoff(_crew(llm, guardrail=long_enough)).raw == "abc"
    assert "too short" in str(llm.calls[-1].messages[-1]["content"])
