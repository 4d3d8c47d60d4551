"""CrewAI's tool API as CrewAI code uses it: ``CrewStructuredTool``, ``BaseTool.to_structured_tool``,
``tool(*args)``, and the ``crewai.tools.tool_failure`` functions around a real crew run."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from crewgraph import Agent, Crew, Task
from crewgraph.errors import ToolExecutionFailedError
from crewgraph.testing import FakeLLM
from crewgraph.testing.fake_llm import FakeToolCall
from crewgraph.tools import BaseTool, tool
from crewgraph.tools.base_tool import to_langchain
from crewgraph.tools.structured_tool import (
    CrewStructuredTool,
    ToolUsageLimitExceededError,
    format_description_for_llm,
    strip_composite_description_prefix,
)
from crewgraph.tools.tool_failure import (
    ToolFailure,
    ToolFailurePolicy,
    ToolFailureReason,
    collect_tool_failures,
    detect_tool_failure,
    failure_from_exception,
    handle_tool_failure,
    merge_tool_failures,
    reportable_failure,
    resolve_tool_failure_policy,
    tool_failure_collector,
)


def multiply(a: int, b: int) -> int:
    """Multiply two numbers."""
    return a * b


def test_structured_tool_from_a_function_validates_counts_and_runs_in_a_crew() -> None:
    st = CrewStructuredTool.from_function(multiply, max_usage_count=2)
    assert st.name == "multiply" and st.description == "Multiply two numbers."
    assert st.invoke({"a": 3, "b": "4"}) == 12  # validated and coerced by the inferred schema
    assert st.invoke('{"a": 2, "b": 5}') == 10
    with pytest.raises(ToolUsageLimitExceededError):
        st.invoke({"a": 1, "b": 1})
    with pytest.raises(ValueError, match="Arguments validation failed"):
        CrewStructuredTool.from_function(multiply).invoke({"a": "x"})
    assert set(st.args) == {"a", "b"}
    assert st.formatted_description.startswith("Tool Name: multiply\nTool Arguments: {")
    assert strip_composite_description_prefix(st.formatted_description) == "Multiply two numbers."
    assert format_description_for_llm("multiply", None, st.formatted_description) == (
        "Tool Name: multiply\nTool Arguments: {}\nTool Description: Multiply two numbers.")

    # given to an agent, it is run by the engine like any tool
    llm = FakeLLM([FakeToolCall("multiply", {"a": 6, "b": 7}), "The product is 42"])
    agent = Agent(role="Calc", goal="compute", backstory="b", llm=llm,
                  tools=[CrewStructuredTool.from_function(multiply)])
    task = Task(description="6 times 7?", expected_output="a number", agent=agent)
    assert Crew(agents=[agent], tasks=[task]).kickoff().raw == "The product is 42"
    assert any(m.get("role") == "tool" and m.get("content") == "42" for m in llm.calls[-1].messages)


def test_base_tool_as_structured_tool_round_trips_and_shares_its_usage_count() -> None:
    @tool("Multiplier", max_usage_count=1)
    def mult(a: int, b: int) -> int:
        """Multiply."""
        return a * b

    st = mult.to_structured_tool()
    assert isinstance(st, CrewStructuredTool) and st.name == "Multiplier"
    assert st.invoke({"a": 2, "b": 3}) == 6
    assert mult.current_usage_count == 1 and st.has_reached_max_usage_count()
    converted = to_langchain([mult, st])
    assert converted[1] is st and converted[0]._original_tool is mult
    assert Agent(role="r", goal="g", tools=[st]).tools == [mult]  # the original tool again
    assert mult.tool_type.endswith("function_tool.Tool")
    assert "Tool Description: Multiply." in mult.formatted_description
    assert mult.description == "Multiply."  # the authored text is never rewritten


def test_tool_takes_crewai_positional_forms() -> None:
    named = tool("Adder")(multiply)
    bare = tool(multiply)
    assert (named.name, bare.name) == ("Adder", "multiply")
    with pytest.raises(TypeError, match="one name or one function"):
        tool("a", multiply)  # type: ignore[call-overload]

    class Answer(BaseModel):
        value: int

    def typed(a: int) -> dict:  # type: ignore[type-arg]
        """Typed."""
        return {"value": a}

    assert tool(result_schema=Answer)(typed).result_schema is Answer


class _Flaky(BaseTool):
    name: str = "flaky"
    description: str = "Reports a failure."

    def _run(self) -> ToolFailure:
        return ToolFailure(message="upstream said no", code="nope")


def test_failure_functions_and_the_collector_around_a_kickoff() -> None:
    failure = failure_from_exception(RuntimeError("boom"))
    assert (failure.reason, failure.code, failure.message) == (ToolFailureReason.EXCEPTION, "RuntimeError", "boom")
    assert detect_tool_failure(failure) is failure and detect_tool_failure("error: text") is None

    agent = Agent(role="Caller", goal="call", backstory="b", tool_failure_policy="ignore",
                  llm=FakeLLM([FakeToolCall("flaky"), "gave up"]), tools=[_Flaky()])
    task = Task(description="call it", expected_output="text", agent=agent, tool_failure_policy="warn")
    assert resolve_tool_failure_policy(tool=_Flaky(), agent=agent, task=task) is ToolFailurePolicy.WARN
    assert reportable_failure(failure, agent=agent) is None  # the agent's policy is ignore
    with tool_failure_collector() as records:
        Crew(agents=[agent], tasks=[task]).kickoff()
    assert [r.failure.code for r in records] == ["nope"]
    assert [r.failure.code for r in agent.last_tool_failures] == ["nope"]
    assert collect_tool_failures(agent) == agent.last_tool_failures
    agent.reset_tool_failures()
    assert agent.last_tool_failures == []
    assert merge_tool_failures(records, list(records)) == records

    with tool_failure_collector() as mine:
        record = handle_tool_failure(failure, tool_name="flaky", tool_args={"x": 1}, task=task)
    assert mine == [record] and record is not None and record.tool_args == {"x": 1}
    assert record.task_id == str(task.id)
    with pytest.raises(ToolExecutionFailedError):
        handle_tool_failure(failure, tool_name="flaky", crew=Crew(agents=[agent], tasks=[task],
                                                                 tool_failure_policy="raise"))
