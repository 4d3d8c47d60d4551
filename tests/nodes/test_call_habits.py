"""Small models' tool-calling habits get targeted answers (against the project's OpenAI-compatible
server, the real SDK and the real agent step): an echoed schema, wrapped arguments, a prefixed
name, 28 identical calls in one reply, the same call again in a later turn."""

from __future__ import annotations

from typing import Any

from crewgraph import LLM, Agent, Crew, Task
from crewgraph.testing import OpenAICompatServer, ServerReply, repeated_calls, schema_echo
from crewgraph.tools import tool
from crewgraph.tools._call_habits import example_arguments, is_schema_echo, unwrap_arguments

RUNS: list[str] = []


@tool("list_files")
def list_files(path: str, depth: int = 1) -> str:
    """List the files under a path."""
    RUNS.append(path)
    return f"{path}: a.py b.py"


def _crew(server: OpenAICompatServer, cache: bool = False) -> Crew:
    llm = LLM(model="small", base_url=server.base_url, api_key="x")
    agent = Agent(role="Cartographer", goal="map", backstory="careful", llm=llm, tools=[list_files])
    task = Task(description="List the files under src", expected_output="the files", agent=agent)
    return Crew(agents=[agent], tasks=[task], cache=cache)


def _tool_texts(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m.get("role") == "tool"]


def test_an_echoed_schema_is_answered_with_a_filled_in_example_and_not_run() -> None:
    RUNS.clear()
    with OpenAICompatServer([schema_echo(), ServerReply.tool_calls(("list_files", {"path": "src"})),
                             "a.py and b.py"]) as server:
        result = _crew(server).kickoff()
        answer = _tool_texts(server.chat_requests[1])[0]
    assert result.raw == "a.py and b.py"
    assert RUNS == ["src"]  # the echo was not run
    assert "You sent the JSON Schema of tool 'list_files' as its arguments" in answer
    assert '{"path": "<path>", "depth": 1}' in answer


def test_wrapped_arguments_and_a_prefixed_name_are_repaired_and_run() -> None:
    RUNS.clear()
    wrapped = {"arguments": {"parameters": {"path": "src"}}}
    with OpenAICompatServer([ServerReply.tool_calls(("functions.List_Files", wrapped)), "done"]) as server:
        result = _crew(server).kickoff()
        texts = _tool_texts(server.chat_requests[1])
    assert result.raw == "done" and RUNS == ["src"]
    assert texts == ["src: a.py b.py"]


def test_identical_calls_in_one_reply_run_once_and_each_gets_the_result() -> None:
    RUNS.clear()
    with OpenAICompatServer([repeated_calls("list_files", {"path": "src"}, 28), "done"]) as server:
        result = _crew(server).kickoff()
        texts = _tool_texts(server.chat_requests[1])
    assert RUNS == ["src"]
    assert texts == ["src: a.py b.py"] * 28  # one answer per call id, as servers require
    record = result.graph.record("t1_list_the_files_under_src.agent")
    assert record.info["duplicate_calls"] == 27
    assert len([r for r in result.graph.records() if r.kind == "tool" and r.status != "plan"]) == 1


def test_the_same_call_in_a_later_turn_is_answered_from_the_first_result_with_a_reminder() -> None:
    RUNS.clear()
    call = ServerReply.tool_calls(("list_files", {"path": "src"}))
    with OpenAICompatServer([call, call, "done"]) as server:
        result = _crew(server, cache=True).kickoff()
        second = _tool_texts(server.chat_requests[2])[-1]
    assert RUNS == ["src"]
    assert second.startswith("You already called list_files with exactly these arguments")
    assert "src: a.py b.py" in second
    assert result.graph.record("t1_list_the_files_under_src.agent").info["repeated_calls"] == 1


def test_the_pieces() -> None:
    schema = {"type": "object", "properties": {"path": {"type": "string"}, "n": {"type": "integer"},
                                               "tags": {"type": "array", "items": {"type": "string"}}},
              "required": ["n"]}
    assert example_arguments(schema) == {"n": 1, "path": "<path>", "tags": ["<tags>"]}
    assert is_schema_echo({"type": "object", "properties": {}}, schema)
    assert not is_schema_echo({"path": "x"}, schema)
    assert not is_schema_echo({"type": "object"}, {"properties": {"type": {"type": "string"}}})
    assert unwrap_arguments({"arguments": '{"path": "x"}'}, {"path"}) == {"path": "x"}
    assert unwrap_arguments({"input": {"path": "x"}}, {"input"}) == {"input": {"path": "x"}}


def test_without_the_cache_a_repeated_call_runs_again_with_a_reminder() -> None:
    RUNS.clear()
    call = ServerReply.tool_calls(("list_files", {"path": "src"}))
    with OpenAICompatServer([call, call, "done"]) as server:
        _crew(server, cache=False).kickoff()
        first, second = _tool_texts(server.chat_requests[2])
    assert RUNS == ["src", "src"]  # the tool may answer differently: it ran
    assert first == "src: a.py b.py"
    assert second.startswith("src: a.py b.py\n(You already made this exact call earlier")


def test_a_task_whose_tools_gave_nothing_is_not_grounded_and_says_so() -> None:
    @tool("empty_search")
    def empty_search(query: str) -> str:
        """Search."""
        return "  "

    @tool("good_search")
    def good_search(query: str) -> str:
        """Search."""
        return "found it"

    from crewgraph.testing import FakeLLM, FakeToolCall

    def run(tools: list[Any], calls: list[Any]) -> Any:
        llm = FakeLLM([*calls, "an answer"])
        agent = Agent(role="R", goal="g", backstory="b", llm=llm, tools=tools)
        return Crew(agents=[agent], tasks=[Task(description="find", expected_output="x", agent=agent)]).kickoff()

    bare = run([empty_search], [FakeToolCall("empty_search", {"query": "a"})]).tasks_output[0]
    assert bare.grounded is False
    assert bare.warnings == ["tool 'empty_search' (1 call) returned nothing; not grounded: the answer rests "
                             "on no tool result"]
    mixed = run([empty_search, good_search], [FakeToolCall("empty_search", {"query": "a"}),
                                              FakeToolCall("good_search", {"query": "a"})]).tasks_output[0]
    assert mixed.grounded is True and mixed.warnings == []
    assert run([good_search], []).tasks_output[0].grounded is None  # no call made
