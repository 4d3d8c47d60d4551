"""agent_step run alone with FakeLLM: prompts, tool loop, max_iter, context, usage."""

from __future__ import annotations

from typing import Any

from crewgraph import Agent, Crew, Task
from crewgraph.nodes.agent_step import AgentStepNode
from crewgraph.outputs import TaskOutput
from crewgraph.testing import FakeLLM, FakeToolCall, run_node
from crewgraph.tools import tool

calls: list[int] = []


@tool("Multiply")
def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    calls.append(a * b)
    return a * b


def step(**kw: Any) -> AgentStepNode:
    base: dict[str, Any] = dict(
        id="t1.agent", task_name="math", description="Compute {x} times 3", expected_output="a number",
        agent_role="Mathematician", agent_goal="compute", agent_backstory="Likes numbers",
    )
    base.update(kw)
    return AgentStepNode(**base)


def test_prompt_built_from_agent_and_task_with_inputs() -> None:
    llm = FakeLLM(responses=["42"])
    result = run_node(step(), inputs={"x": 14}, llm=llm)
    out = result.output
    assert isinstance(out, TaskOutput)
    assert (out.raw, out.agent, out.description) == ("42", "Mathematician", "Compute 14 times 3")
    system, user = llm.calls[0].messages
    assert system["content"].startswith("You are Mathematician. Likes numbers")
    assert "Your personal goal is: compute" in system["content"]
    assert "Current Task: Compute 14 times 3" in user["content"]
    assert "expected criteria for your final answer: a number" in user["content"]
    assert out.token_usage.total_tokens > 0 and out.token_usage.successful_requests == 1


def test_tool_calls_run_as_spawned_nodes_then_the_step_resumes() -> None:
    calls.clear()
    llm = FakeLLM(responses=[[FakeToolCall("Multiply", {"a": 14, "b": 3}), FakeToolCall("Multiply", {"a": 2, "b": 2})], "42"])
    result = run_node(step(tools=(multiply,)), inputs={"x": 14}, llm=llm)
    assert result.output.raw == "42"
    assert sorted(calls) == [4, 42]
    second = llm.calls[1].messages
    tool_msgs = [m for m in second if m["role"] == "tool"]
    assert [m["content"] for m in tool_msgs] == ["42", "4"]
    assert llm.calls[0].tool_names == ["Multiply"]
    assert result.output.token_usage.successful_requests == 2


def test_max_iter_asks_for_a_final_answer_without_tools() -> None:
    loop = [FakeToolCall("Multiply", {"a": 1, "b": 1})]
    llm = FakeLLM(responses=[loop, loop, "final after limit"])
    result = run_node(step(tools=(multiply,), max_iter=2), inputs={"x": 1}, llm=llm)
    assert result.output.raw == "final after limit"
    last = llm.calls[-1]
    assert last.tools == []
    assert "maximum number of tool calls" in last.messages[-1]["content"]


def test_context_outputs_from_upstream_appear_in_prompt() -> None:
    llm = FakeLLM(responses=["ok"])
    up = TaskOutput(description="research", name="research", raw="THE NOTES")
    run_node(step(context_nodes=("t0.agent",)), inputs={"x": 1}, upstream={"t0.agent": up}, llm=llm)
    assert "This is the context you're working with:\nTHE NOTES" in llm.calls[0].messages[1]["content"]


def test_unknown_tool_is_reported_back_to_the_model() -> None:
    llm = FakeLLM(responses=[[FakeToolCall("Nope", {})], "done"])
    result = run_node(step(tools=(multiply,)), inputs={"x": 1}, llm=llm)
    tool_msg = next(m for m in llm.calls[1].messages if m["role"] == "tool")
    assert "Nope" in tool_msg["content"] and "Multiply" in tool_msg["content"]
    assert result.output.has_tool_failures


def test_human_input_feedback_reruns_the_step() -> None:
    from crewgraph.graph import RunState

    answers = iter(["make it shorter", ""])
    state = RunState(extras={"input_provider": lambda prompt: next(answers)})
    llm = FakeLLM(responses=["long answer", "short"])
    result = run_node(step(human_input=True), inputs={"x": 1}, llm=llm, state=state)
    assert result.output.raw == "short"
    assert "Human feedback on your answer: make it shorter" in llm.calls[1].prompt


def test_agent_llm_string_is_resolved_to_llm_client() -> None:
    a = Agent(role="R", goal="g", llm="gpt-4o-mini")
    node = Crew(agents=[a], tasks=[Task(description="d", expected_output="e", agent=a)]).compile().node("t1_d.agent")
    assert node.llm == "gpt-4o-mini"  # type: ignore[attr-defined]


def test_agent_fields_are_interpolated_like_task_fields() -> None:
    llm = FakeLLM(responses=["ok"])
    node = step(agent_role="{topic} Researcher", agent_goal="Study {topic}", agent_backstory="Loves {topic}")
    out = run_node(node, inputs={"x": 1, "topic": "AI"}, llm=llm).output
    system = llm.calls[0].messages[0]["content"]
    assert system.startswith("You are AI Researcher. Loves AI") and "Study AI" in system
    assert out.agent == "AI Researcher"


def test_human_input_without_a_terminal_accepts_the_answer() -> None:
    from crewgraph.graph import RunState

    def closed_stdin(prompt: str) -> str:
        raise EOFError

    llm = FakeLLM(responses=["answer"])
    state = RunState(extras={"input_provider": closed_stdin})
    out = run_node(step(human_input=True, task_name="About {x}"), inputs={"x": 7}, llm=llm, state=state).output
    assert out.raw == "answer" and len(llm.calls) == 1
    assert out.name == "About 7"
