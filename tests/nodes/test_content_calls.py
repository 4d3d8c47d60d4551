"""Tool calls open models write into their text: the parser, and the agent step running them
against the test server's real-server reply shapes (one per format)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from crewgraph import LLM, Agent, Crew, Task
from crewgraph.nodes._content_calls import UNREADABLE, find_content_calls
from crewgraph.nodes._prompts import MAX_ITER_MESSAGE, NO_TOOLS_MESSAGE
from crewgraph.nodes.agent_step import AgentStepNode
from crewgraph.testing import (
    TEXT_TOOL_FORMATS,
    FakeLLM,
    FakeToolCall,
    OpenAICompatServer,
    ServerReply,
    run_node,
    written_tool_calls,
)
from crewgraph.tools import tool

multiplied: list[int] = []


@tool("Multiply")
def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    multiplied.append(a * b)
    return a * b


NAMES = ["Multiply", "search"]


def calls_of(text: str, names: list[str] = NAMES) -> tuple[str, list[tuple[str, Any]]] | None:
    found = find_content_calls(text, names)
    if found is None:
        return None
    return found.format, [(c.name, json.loads(c.arguments)) for c in found.calls]


# ---------------------------------------------------------------- parser
@pytest.mark.parametrize("fmt", TEXT_TOOL_FORMATS)
def test_every_written_format_is_read_back(fmt: str) -> None:
    one = written_tool_calls(fmt, [("Multiply", '{"a": 2, "b": 3}')])
    two = written_tool_calls(fmt, [("Multiply", '{"a": 2, "b": 3}'), ("search", '{"q": "x"}')])
    assert calls_of(one) == (fmt, [("Multiply", {"a": 2, "b": 3})])
    assert calls_of(two) == (fmt, [("Multiply", {"a": 2, "b": 3}), ("search", {"q": "x"})])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"name": "search", "parameters": {"q": "x"}}', ("json", [("search", {"q": "x"})])),
        ('{"type": "function", "function": {"name": "search", "arguments": "{\\"q\\": \\"x\\"}"}}',
         ("json", [("search", {"q": "x"})])),
        ('<tool_call>\n{"name": "search", "arguments": {"q": "x"}}', ("hermes", [("search", {"q": "x"})])),
        ('<tool_call>\n{"name": "search", "arguments": {"q": "x"}\n</tool_call>',  # a brace short
         ("hermes", [("search", {"q": "x"})])),
        ("<tool_call>\n<function=search>\n<parameter=q>\nx\n</parameter>\n</function>\n</tool_call>",
         ("hermes", [("search", {"q": "x"})])),
        ('[TOOL_CALLS]search[ARGS]{"q": "x"}', ("mistral", [("search", {"q": "x"})])),
        ('<|python_tag|>search.call(q="x")<|eom_id|>', ("llama", [("search", {"q": "x"})])),
        ('<|tool_calls_section_begin|><|tool_call_begin|>functions.search:0<|tool_call_argument_begin|>'
         '{"q": "x"}<|tool_call_end|>', ("functions", [("search", {"q": "x"})])),
        ('<|channel|>commentary to=functions.search <|constrain|>json<|message|>{"q":"x"}<|call|>',
         ("functions", [("search", {"q": "x"})])),
        ('{"name": "functions.search", "arguments": {"q": "x"}}', ("json", [("search", {"q": "x"})])),
    ],
)
def test_variants_real_models_write(text: str, expected: Any) -> None:
    assert calls_of(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I used the search tool and the answer is 6.",
        '{"name": "Oslo", "population": 709000}',                                 # the task's own JSON
        'You could call {"name": "search", "arguments": {"q": "x"}} for that.',   # inside a sentence
        'For example:\n```json\n{"name": "other", "arguments": {}}\n```\nis how a call looks.',
        "[1, 2, 3]",
        '[unknown_function(x=1)]',
        "",
    ],
)
def test_replies_that_merely_mention_a_tool_stay_answers(text: str) -> None:
    assert find_content_calls(text, NAMES) is None


def test_prose_before_the_call_is_kept_and_a_lone_fenced_call_counts_even_if_unknown() -> None:
    found = find_content_calls('I need the product.\n<tool_call>{"name": "Multiply", "arguments": {}}</tool_call>',
                               NAMES)
    assert found is not None and found.prose == "I need the product."
    assert calls_of('```json\n{"name": "Divide", "arguments": {"a": 1}}\n```') == (
        "fenced_json", [("Divide", {"a": 1})])


def test_a_marked_call_that_cannot_be_read_is_still_a_call() -> None:
    found = find_content_calls("<tool_call>\nMultiply 2 and 3\n</tool_call>", NAMES)
    assert found is not None and found.calls[0].name == UNREADABLE
    assert found.calls[0].arguments == "Multiply 2 and 3"


# ---------------------------------------------------------------- the agent step
def step(**kw: Any) -> AgentStepNode:
    base: dict[str, Any] = dict(
        id="t1.agent", task_name="math", description="Compute {x} times 3", expected_output="a number",
        agent_role="Mathematician", agent_goal="compute", tools=(multiply,),
    )
    base.update(kw)
    return AgentStepNode(**base)


def test_a_written_call_runs_as_a_native_tool_call() -> None:
    multiplied.clear()
    llm = FakeLLM(['<tool_call>\n{"name": "Multiply", "arguments": {"a": 14, "b": 3}}\n</tool_call>', "42"])
    result = run_node(step(), inputs={"x": 14}, llm=llm)
    assert result.output.raw == "42" and multiplied == [42]
    second = llm.calls[1]
    assert second.tool_names == ["Multiply"]  # still the native protocol
    call_message, tool_message = second.messages[-2:]
    assert call_message["role"] == "assistant" and call_message["content"] is None
    assert call_message["tool_calls"][0]["function"] == {"name": "Multiply", "arguments": '{"a": 14, "b": 3}'}
    assert tool_message == {"role": "tool", "tool_call_id": "text1_0", "name": "Multiply", "content": "42"}
    assert result.info["iterations"] == 1 and result.info["text_tool_calls"] == {"hermes": 1}


def test_unknown_tool_and_bad_arguments_are_answered_as_for_native_calls() -> None:
    llm = FakeLLM(['{"name": "Divide", "arguments": {"a": 1}}', '{"name": "Multiply", "arguments": {"a": "x"}}',
                   "cannot"])
    result = run_node(step(), inputs={"x": 1}, llm=llm)
    assert result.output.raw == "cannot"
    unknown = llm.calls[1].messages[-1]
    assert unknown["role"] == "tool" and "'Divide' does not exist" in unknown["content"]
    invalid = llm.calls[2].messages[-1]["content"]
    assert "Invalid arguments for tool 'Multiply'" in invalid
    assert len(result.output.tool_failures) == 2


def test_written_calls_are_bounded_by_max_iter() -> None:
    call = written_tool_calls("json", [("Multiply", '{"a": 1, "b": 1}')])
    llm = FakeLLM([call, call, call, "1"])
    result = run_node(step(max_iter=2), inputs={"x": 1}, llm=llm)
    assert result.output.raw == "1"
    # two calls ran; the third, written after max_iter with no tools offered, was refused once
    assert [c.tool_names for c in llm.calls] == [["Multiply"], ["Multiply"], [], []]
    assert llm.calls[2].messages[-1]["content"] == MAX_ITER_MESSAGE
    assert llm.calls[3].messages[-1]["content"] == NO_TOOLS_MESSAGE


def test_text_protocol_model_writing_its_own_format_gets_the_call_run() -> None:
    multiplied.clear()
    llm = FakeLLM(['[TOOL_CALLS] [{"name": "Multiply", "arguments": {"a": 2, "b": 5}}]', "Final Answer: 10"],
                  function_calling=False)
    result = run_node(step(), inputs={"x": 2}, llm=llm)
    assert result.output.raw == "10" and multiplied == [10]
    assert llm.calls[1].messages[-1] == {"role": "user", "content": "Observation: 10"}
    assert result.info["text_tool_calls"] == {"mistral": 1}


def _llm_for(server: OpenAICompatServer) -> LLM:
    return LLM(model="qwen2.5-0.5b", base_url=server.base_url, api_key="k", retry_initial_delay=0.001)


@pytest.mark.parametrize("fmt", TEXT_TOOL_FORMATS)
def test_crew_against_a_server_whose_model_writes_calls_as_text(fmt: str) -> None:
    multiplied.clear()
    replies = [ServerReply.tool_calls(("Multiply", {"a": 6, "b": 7})), "The answer is 42."]
    with OpenAICompatServer(replies, tool_calls_as_text=fmt) as server:
        agent = Agent(role="Calc", goal="multiply", tools=[multiply], llm=_llm_for(server))
        out = Crew(agents=[agent], tasks=[Task(description="6*7", expected_output="n", agent=agent)]).kickoff()
        chats = server.chat_requests
    assert out.raw == "The answer is 42." and multiplied == [42]
    assert "tool_calls" not in json.dumps(chats[0]["messages"])  # the server did send text
    assert chats[1]["messages"][-1]["role"] == "tool" and chats[1]["messages"][-1]["content"] == "42"
    (record,) = [r for r in out.graph.records() if r.kind == "tool" and r.parent == "t1_6_7.agent"]
    assert record.status == "completed" and record.info["format"] == fmt and record.info["tool"] == "Multiply"


def test_native_tool_calls_are_unchanged() -> None:
    multiplied.clear()
    llm = FakeLLM([FakeToolCall("Multiply", {"a": 3, "b": 3}), "9"])
    result = run_node(step(), inputs={"x": 3}, llm=llm)
    assert result.output.raw == "9" and "text_tool_calls" not in result.info


def test_a_manager_that_writes_its_delegation_as_text_delegates() -> None:
    from crewgraph import Process

    researcher_llm = FakeLLM(["owl facts"])
    delegation = written_tool_calls(
        "hermes", [("Delegate_work_to_coworker", json.dumps({"task": "Find owl facts", "context": "",
                                                             "coworker": "Researcher"}))])
    manager = FakeLLM([delegation, "notes: owl facts"])
    researcher = Agent(role="Researcher", goal="Find facts", llm=researcher_llm)
    crew = Crew(agents=[researcher], tasks=[Task(name="research", description="Research owls", expected_output="notes")],
                process=Process.hierarchical, manager_llm=manager)
    out = crew.kickoff()
    assert out.raw == "notes: owl facts"
    assert "Find owl facts" in researcher_llm.calls[0].prompt
    delegated = out.graph.record("t1_research.manager.it1.0.delegate.researcher")
    assert delegated.kind == "agent_step" and delegated.status == "completed"
