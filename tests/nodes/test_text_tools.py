"""The text (ReAct-style) tool protocol: parsing and prompts as pure functions, the agent step
on a model without tool calling, the fallback when a real server rejects tools, and
``function_calling_llm``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from crewgraph import LLM, Agent, Crew, Task
from crewgraph.errors import LLMError
from crewgraph.graph.policies import RetryPolicy
from crewgraph.llm.types import ToolSpec
from crewgraph.nodes._prompts import MAX_ITER_MESSAGE
from crewgraph.nodes._text_tools import (
    FORMAT_MARKER,
    TextAction,
    TextFinal,
    TextInvalid,
    corrective_message,
    final_answer_text,
    forced_final_message,
    is_tools_unsupported,
    parse_reply,
    text_history,
    tools_prompt,
    with_tools_prompt,
)
from crewgraph.nodes.agent_step import AgentStepNode
from crewgraph.testing import FakeLLM, FakeToolCall, OpenAICompatServer, ServerReply, run_node
from crewgraph.tools import tool

multiplied: list[int] = []


@tool("Multiply")
def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    multiplied.append(a * b)
    return a * b


def step(**kw: Any) -> AgentStepNode:
    base: dict[str, Any] = dict(
        id="t1.agent", task_name="math", description="Compute {x} times 3", expected_output="a number",
        agent_role="Mathematician", agent_goal="compute", agent_backstory="Likes numbers", tools=(multiply,),
    )
    base.update(kw)
    return AgentStepNode(**base)


def action(name: str, args: dict[str, Any] | str, thought: str = "I should use a tool") -> str:
    text = args if isinstance(args, str) else json.dumps(args)
    return f"Thought: {thought}\nAction: {name}\nAction Input: {text}"


# ---------------------------------------------------------------- parser
def test_action_with_json_input() -> None:
    reply = parse_reply('Thought: need the product\nAction: Multiply\nAction Input: {"a": 14, "b": 3}')
    assert reply == TextAction(
        tool="Multiply",
        arguments='{"a": 14, "b": 3}',
        text='Thought: need the product\nAction: Multiply\nAction Input: {"a": 14, "b": 3}',
        thought="need the product",
    )


def test_action_with_fenced_json_any_case_and_extra_whitespace() -> None:
    reply = parse_reply('  thought :  hmm\n  ACTION :   `Multiply`  \n action input:   ```json\n{"a": 2,\n "b": 5}\n```\n')
    assert isinstance(reply, TextAction)
    assert (reply.tool, json.loads(reply.arguments)) == ("Multiply", {"a": 2, "b": 5})
    assert reply.text.endswith("```")


def test_markdown_labels_python_dict_and_trailing_text() -> None:
    reply = parse_reply("**Action:** Multiply()\n**Action Input:** {'a': 1, 'b': True} and then I wait")
    assert isinstance(reply, TextAction)
    assert (reply.tool, json.loads(reply.arguments)) == ("Multiply", {"a": 1, "b": True})
    assert not reply.text.endswith("wait")


def test_only_the_first_action_counts_and_invented_observations_are_dropped() -> None:
    text = (
        'Action: Multiply\nAction Input: {"a": 1, "b": 2}\nObservation: 2\n'
        'Action: Multiply\nAction Input: {"a": 3, "b": 4}\nFinal Answer: 12'
    )
    reply = parse_reply(text)
    assert isinstance(reply, TextAction)
    assert json.loads(reply.arguments) == {"a": 1, "b": 2}
    assert reply.text == 'Action: Multiply\nAction Input: {"a": 1, "b": 2}'


def test_action_input_missing_none_or_not_json() -> None:
    assert parse_reply("Action: Clock").arguments == "{}"  # type: ignore[union-attr]
    assert parse_reply("Action: Clock\nAction Input: None").arguments == "{}"  # type: ignore[union-attr]
    # Not a JSON object: passed on verbatim so the tool node explains the schema.
    assert parse_reply("Action: Search\nAction Input: cats and dogs").arguments == "cats and dogs"  # type: ignore[union-attr]
    same_line = parse_reply('Action: Multiply, Action Input: {"a": 1, "b": 1}')
    assert isinstance(same_line, TextAction) and same_line.tool == "Multiply"


def test_final_answer() -> None:
    assert parse_reply("Thought: I now know the final answer\nFinal Answer: 42") == TextFinal("42")
    assert parse_reply("final answer:\n\nline one\nline two  ") == TextFinal("line one\nline two")
    assert parse_reply("**Final Answer:** done") == TextFinal("done")
    # A final answer that comes first wins, even if it mentions an action later on.
    assert parse_reply("Final Answer: steps:\nAction: none needed") == TextFinal("steps:\nAction: none needed")


def test_malformed_replies_are_invalid() -> None:
    assert isinstance(parse_reply("The answer is probably 42."), TextInvalid)
    assert isinstance(parse_reply("Final Answer:   "), TextInvalid)
    assert isinstance(parse_reply("Action:\nAction Input: {}"), TextInvalid)
    assert isinstance(parse_reply("I will take action: now"), TextInvalid)  # "Action:" must start a line


def test_final_answer_text_falls_back_to_the_whole_reply() -> None:
    assert final_answer_text("Thought: ok\nFinal Answer: 7") == "7"
    assert final_answer_text("  just 7  ") == "just 7"


def test_tools_prompt_lists_name_description_schema_and_format() -> None:
    spec = multiply.to_spec()
    text = tools_prompt([spec])
    assert text.startswith(FORMAT_MARKER)
    assert "Tool Name: Multiply" in text and "Tool Description: Multiply two integers." in text
    assert json.dumps(spec.parameters, sort_keys=True) in text
    for label in ("Thought:", "Action: the name of the tool, exactly one of [Multiply]", "Action Input:", "Final Answer:"):
        assert label in text


def test_with_tools_prompt_appends_to_the_system_message_once() -> None:
    spec = ToolSpec(name="t", description="d")
    msgs = [{"role": "system", "content": "You are X."}, {"role": "user", "content": "task"}]
    once = with_tools_prompt(msgs, [spec])
    assert once[0]["content"].startswith("You are X.\n\n" + FORMAT_MARKER) and msgs[0]["content"] == "You are X."
    assert with_tools_prompt(once, [spec]) == once
    assert with_tools_prompt([{"role": "user", "content": "q"}], [spec])[0]["role"] == "system"


def test_text_history_rewrites_native_tool_traffic() -> None:
    msgs = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "Multiply", "arguments": '{"a": 1, "b": 2}'}}]},
        {"role": "tool", "tool_call_id": "c1", "name": "Multiply", "content": "2"},
    ]
    assert text_history(msgs) == [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": 'Action: Multiply\nAction Input: {"a": 1, "b": 2}'},
        {"role": "user", "content": "Observation: 2"},
    ]


def test_corrective_and_forced_final_messages() -> None:
    text = corrective_message("it has no Action", ["Multiply", "Add"])
    assert "it has no Action" in text and "[Multiply, Add]" in text and "Final Answer:" in text
    assert forced_final_message(MAX_ITER_MESSAGE).startswith(MAX_ITER_MESSAGE)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("HTTP 400 from http://x/v1: This model does not support tools (tool calling is disabled).", True),
        ("registry.ollama.ai/library/gemma:2b does not support tools", True),
        ("HTTP 500: tools param requires --jinja flag", True),
        ('"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', True),
        ("HTTP 400: messages.2: invalid tool_call_id", False),
        ("HTTP 404: model not found", False),
    ],
)
def test_is_tools_unsupported(message: str, expected: bool) -> None:
    assert is_tools_unsupported(LLMError(message, status_code=400), FakeLLM()) is expected
    assert is_tools_unsupported(ValueError("does not support tools"), FakeLLM()) is False
    assert is_tools_unsupported(LLMError("anything"), FakeLLM(function_calling=False)) is True


# ---------------------------------------------------------------- the agent step
def test_step_without_function_calling_uses_the_text_protocol() -> None:
    multiplied.clear()
    llm = FakeLLM([action("Multiply", {"a": 14, "b": 3}), "Thought: I now know the final answer\nFinal Answer: 42"],
                  function_calling=False)
    result = run_node(step(), inputs={"x": 14}, llm=llm)
    assert result.output.raw == "42"
    assert multiplied == [42]
    first, second = llm.calls
    assert first.tools == [] and second.tools == []
    assert "Tool Name: Multiply" in first.messages[0]["content"]
    assert second.messages[-2] == {"role": "assistant", "content": action("Multiply", {"a": 14, "b": 3})}
    assert second.messages[-1] == {"role": "user", "content": "Observation: 42"}
    assert result.info["iterations"] == 1


def test_scripted_tool_calls_become_text_on_a_fake_without_function_calling() -> None:
    multiplied.clear()
    llm = FakeLLM([FakeToolCall("Multiply", {"a": 2, "b": 3}), "Final Answer: 6"], function_calling=False)
    result = run_node(step(), inputs={"x": 2}, llm=llm)
    assert result.output.raw == "6" and multiplied == [6]
    assert llm.calls[1].messages[-2]["content"] == 'Action: Multiply\nAction Input: {"a": 2, "b": 3}'


def test_malformed_reply_gets_one_corrective_message() -> None:
    llm = FakeLLM(["I think it is 42", "Final Answer: 42"], function_calling=False)
    result = run_node(step(), inputs={"x": 14}, llm=llm)
    assert result.output.raw == "42"
    correction = llm.calls[1].messages[-1]
    assert correction["role"] == "user" and correction["content"].startswith("Your reply did not follow")
    assert result.info["iterations"] == 1  # the correction counts as an iteration


def test_persistently_malformed_reply_is_taken_as_the_final_answer() -> None:
    llm = FakeLLM(["It is 42", "Really, it is 42."], function_calling=False)
    result = run_node(step(), inputs={"x": 14}, llm=llm)
    assert result.output.raw == "Really, it is 42."
    assert llm.call_count == 2


def test_unknown_tool_name_gets_the_normal_tool_failure_message() -> None:
    llm = FakeLLM([action("Divide", {"a": 1}), "Final Answer: cannot"], function_calling=False)
    result = run_node(step(), inputs={"x": 1}, llm=llm)
    observation = llm.calls[1].messages[-1]["content"]
    assert observation.startswith("Observation: ") and "'Divide' does not exist" in observation
    assert "Available tools: Multiply" in observation
    assert result.output.has_tool_failures


def test_invalid_arguments_get_the_tool_schema_back() -> None:
    llm = FakeLLM([action("Multiply", "fourteen times three"), "Final Answer: 42"], function_calling=False)
    result = run_node(step(), inputs={"x": 14}, llm=llm)
    observation = llm.calls[1].messages[-1]["content"]
    assert "Invalid arguments for tool 'Multiply'" in observation and '"a"' in observation
    assert result.output.raw == "42"


def test_max_iter_asks_for_a_final_answer_in_text_mode() -> None:
    loop = action("Multiply", {"a": 1, "b": 1})
    llm = FakeLLM([loop, loop, "Thought: done\nFinal Answer: 1"], function_calling=False)
    result = run_node(step(max_iter=2), inputs={"x": 1}, llm=llm)
    assert result.output.raw == "1"
    last = llm.calls[-1].messages[-1]["content"]
    assert last.startswith(MAX_ITER_MESSAGE) and '"Final Answer:"' in last


def test_crew_on_a_text_model_records_tool_nodes_and_answers_a_repeat_from_the_first_result() -> None:
    multiplied.clear()
    llm = FakeLLM([action("Multiply", {"a": 6, "b": 7}), action("Multiply", {"a": 6, "b": 7}), "Final Answer: 42"],
                  function_calling=False)
    agent = Agent(role="Calc", goal="multiply", tools=[multiply], llm=llm)
    out = Crew(agents=[agent], tasks=[Task(description="6*7", expected_output="n", agent=agent)], cache=True).kickoff()
    assert out.raw == "42"
    assert multiplied == [42]  # the second, identical call was not run
    tool_records = [r for r in out.graph.records() if r.kind == "tool" and r.parent == "t1_6_7.agent"]
    assert len(tool_records) == 1 and tool_records[0].status == "completed"
    assert out.graph.record("t1_6_7.agent").info["repeated_calls"] == 1
    assert "You already called Multiply with exactly these arguments" in llm.calls[2].prompt


# ---------------------------------------------------------------- fallback on a real server
def _llm_for(server: OpenAICompatServer) -> LLM:
    return LLM(model="test-model", base_url=server.base_url, api_key="k",
               retry_initial_delay=0.001, retry_max_delay=0.005)


def test_server_rejecting_tools_switches_the_step_to_text() -> None:
    multiplied.clear()
    replies = [ServerReply.text(action("Multiply", {"a": 2, "b": 21})),
               ServerReply.text("Thought: I now know the final answer\nFinal Answer: 42"),
               ServerReply.text(action("Multiply", {"a": 3, "b": 3})), ServerReply.text("Final Answer: 9")]
    with OpenAICompatServer(replies, supports_tools=False) as server:
        llm = _llm_for(server)
        agent = Agent(role="Calc", goal="multiply", tools=[multiply], llm=llm)
        tasks = [Task(description="2*21", expected_output="n", agent=agent),
                 Task(description="3*3", expected_output="n", agent=agent)]
        out = Crew(agents=[agent], tasks=tasks).kickoff()
        chats = server.chat_requests
    assert [t.raw for t in out.tasks_output] == ["42", "9"]
    assert multiplied == [42, 9]
    assert "tools" in chats[0]  # rejected with a 400, and not retried
    assert all("tools" not in c for c in chats[1:])
    assert len(chats) == 5  # one rejected request, then two text turns per task
    assert FORMAT_MARKER in chats[1]["messages"][0]["content"]
    assert chats[2]["messages"][-1] == {"role": "user", "content": "Observation: 42"}
    assert llm.supports_function_calling() is False  # so the second task went straight to text
    failed = [r for r in out.graph.records() if r.kind == "llm" and r.status == "failed"]
    assert len(failed) == 1 and failed[0].info.get("status_code") == 400


def test_a_text_protocol_run_replays_from_its_cassette(tmp_path: Any) -> None:
    def build(llm: Any) -> Crew:
        agent = Agent(role="Calc", goal="multiply", tools=[multiply], llm=llm)
        tasks = [Task(description="2*21", expected_output="n", agent=agent),
                 Task(description="3*3", expected_output="n", agent=agent)]
        return Crew(agents=[agent], tasks=tasks, cassette=str(tmp_path / "run.jsonl"))

    replies = [action("Multiply", {"a": 2, "b": 21}), "Final Answer: 42", action("Multiply", {"a": 3, "b": 3}),
               "Final Answer: 9"]
    with OpenAICompatServer(replies, supports_tools=False) as server:
        recorded = build(_llm_for(server)).kickoff()
        dead_url = server.base_url
    replayed = build(LLM(model="test-model", base_url=dead_url, api_key="k")).kickoff()  # no server now
    assert [t.raw for t in replayed.tasks_output] == [t.raw for t in recorded.tasks_output] == ["42", "9"]
    fake = build(FakeLLM([FakeToolCall("Multiply", {"a": 2, "b": 21}), "Final Answer: 42",
                          FakeToolCall("Multiply", {"a": 3, "b": 3}), "Final Answer: 9"], function_calling=False))
    (tmp_path / "run.jsonl").unlink()
    assert fake.kickoff().raw == "9"
    assert build(FakeLLM([], function_calling=False)).kickoff().raw == "9"  # replayed, not called


def test_a_model_that_rejected_tools_is_text_only_for_the_rest_of_the_run() -> None:
    """A custom client that does not remember the rejection is still asked only once with tools."""
    llm = FakeLLM([LLMError("this model does not support tools", status_code=400), "Final Answer: 1",
                   "Final Answer: 2"])
    agent = Agent(role="Calc", goal="multiply", tools=[multiply], llm=llm)
    tasks = [Task(description="one", expected_output="n", agent=agent),
             Task(description="two", expected_output="n", agent=agent)]
    out = Crew(agents=[agent], tasks=tasks).kickoff()
    assert [t.raw for t in out.tasks_output] == ["1", "2"]
    assert [c.tool_names for c in llm.calls] == [["Multiply"], [], []]


def test_custom_client_error_saying_tools_are_unsupported_falls_back() -> None:
    llm = FakeLLM([LLMError("this model does not support tools", status_code=400), "Final Answer: 7"])
    result = run_node(step(), inputs={"x": 1}, llm=llm)
    assert result.output.raw == "7"
    assert llm.calls[0].tool_names == ["Multiply"] and llm.calls[1].tools == []


def test_other_errors_are_not_taken_for_a_tools_rejection() -> None:
    llm = FakeLLM([LLMError("HTTP 400: bad request", status_code=400)])
    with pytest.raises(LLMError, match="bad request"):
        run_node(step(retry=RetryPolicy(max_attempts=1)), inputs={"x": 1}, llm=llm)


# ---------------------------------------------------------------- function_calling_llm
def test_function_calling_llm_makes_the_tool_turns() -> None:
    multiplied.clear()
    main = FakeLLM(["Final answer from the main model: 4"])
    tools_model = FakeLLM([FakeToolCall("Multiply", {"a": 2, "b": 2})])
    agent = Agent(role="Calc", goal="multiply", tools=[multiply], llm=main, function_calling_llm=tools_model, max_iter=1)
    crew = Crew(agents=[agent], tasks=[Task(description="2*2", expected_output="n", agent=agent)])
    assert crew.compile().node("t1_2_2.agent").function_calling_llm is tools_model  # type: ignore[attr-defined]
    out = crew.kickoff()
    assert out.raw == "Final answer from the main model: 4" and multiplied == [4]
    assert tools_model.call_count == 1 and tools_model.calls[0].tool_names == ["Multiply"]
    # max_iter reached: the turn without tools goes to the agent's own llm.
    assert main.call_count == 1 and main.calls[0].tools == []
    assert main.calls[0].messages[-1]["content"] == MAX_ITER_MESSAGE


def test_function_calling_llm_answers_when_it_finishes_and_is_unused_without_tools() -> None:
    main = FakeLLM(["plain answer"])
    tools_model = FakeLLM(["Final Answer: from the tools model"], function_calling=False)
    with_tools = Agent(role="A", goal="g", tools=[multiply], llm=main, function_calling_llm=tools_model)
    without = Agent(role="B", goal="g", llm=main, function_calling_llm=tools_model)
    tasks = [Task(description="one", expected_output="n", agent=with_tools),
             Task(description="two", expected_output="n", agent=without)]
    out = Crew(agents=[with_tools, without], tasks=tasks).kickoff()
    assert [t.raw for t in out.tasks_output] == ["from the tools model", "plain answer"]
    assert tools_model.call_count == 1 and FORMAT_MARKER in tools_model.calls[0].messages[0]["content"]
    assert main.call_count == 1
