"""The span tree of a traced crew: run -> task -> agent step -> LLM calls and tool calls,
with a guardrail redo, a retried model call and a failure, and GenAI attributes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.testing import FakeLLM
from crewgraph.testing.fake_llm import FakeToolCall
from crewgraph.tools import tool

Spans = Any  # the fixture in conftest.py: finished spans and their tree


@tool("lookup")
def lookup(name: str) -> str:
    """Look a person up."""
    return f"{name}: 555-0101"


def _crew(llm: FakeLLM, *, guardrail: Any = None, **crew_options: Any) -> Crew:
    clerk = Agent(role="Clerk", goal="Find", backstory="Finds.", tools=[lookup], llm=llm)
    find = Task(description="Find Ann", expected_output="Facts", agent=clerk, name="find", guardrail=guardrail)
    report = Task(description="Report", expected_output="A report", agent=clerk, name="report")
    return Crew(agents=[clerk], tasks=[find, report], **crew_options)


def test_a_crew_with_a_tool_call_a_retry_and_a_guardrail_redo(spans: Spans) -> None:
    from opentelemetry.trace import StatusCode

    verdicts = iter([(False, "Say more"), (True, "ok")])
    llm = FakeLLM([FakeToolCall("lookup", {"name": "Ann"}), ConnectionError("reset"), "short", "longer", "report"])
    assert _crew(llm, guardrail=lambda output: next(verdicts), tracing=True).kickoff().raw == "report"

    crew = spans.one("crew crew")
    assert spans.parent(crew) is None
    assert [s.name for s in spans.children(crew)] == ["task find", "task report"], spans.tree()
    find = spans.one("task find")
    under_find = [s.name for s in spans.children(find)]
    assert under_find == ["invoke_agent Clerk", "guardrail <lambda>", "invoke_agent Clerk"], spans.tree()

    agent = spans.children(find)[0]
    assert agent.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert agent.attributes["gen_ai.agent.name"] == "Clerk"
    steps = [s.name for s in spans.children(agent)]
    assert steps == ["chat fake", "execute_tool lookup", "chat fake", "chat fake"], spans.tree()
    first, tool_span, failed, answered = spans.children(agent)
    assert first.attributes["gen_ai.request.model"] == "fake"
    assert first.attributes["gen_ai.response.finish_reasons"] == ("tool_calls",)
    assert first.attributes["gen_ai.usage.input_tokens"] > 0 and first.attributes["gen_ai.usage.output_tokens"] > 0
    assert tool_span.attributes["gen_ai.tool.name"] == "lookup"
    assert tool_span.status.status_code is not StatusCode.ERROR
    assert failed.status.status_code is StatusCode.ERROR and "reset" in (failed.status.description or "")
    assert answered.attributes["gen_ai.response.finish_reasons"] == ("stop",)
    retries = [e for e in agent.events if e.name == "retry"]
    assert len(retries) == 1 and "reset" in str(retries[0].attributes["exception.message"])

    redo = spans.children(find)[2]
    assert [s.name for s in spans.children(redo)] == ["chat fake"]
    report = spans.one("task report")
    assert [s.name for s in spans.children(report)] == ["invoke_agent Clerk"]
    # every span of the run is in one trace, and times nest
    assert {s.context.trace_id for s in spans.all} == {crew.context.trace_id}
    for span in spans.all:
        parent = spans.parent(span)
        if parent is not None:
            assert parent.start_time <= span.start_time and span.end_time <= parent.end_time, span.name


def test_a_failure_marks_its_spans_and_the_run(spans: Spans) -> None:
    from opentelemetry.trace import StatusCode

    llm = FakeLLM([ValueError("the model broke")] * 4)
    with pytest.raises(Exception, match="the model broke"):
        _crew(llm, tracing=True).kickoff()
    crew = spans.one("crew crew")
    assert crew.status.status_code is StatusCode.ERROR
    find = spans.one("task find")
    assert find.status.status_code is StatusCode.ERROR
    agent = spans.children(find)[0]
    assert agent.status.status_code is StatusCode.ERROR and "the model broke" in (agent.status.description or "")
    assert all(s.status.status_code is StatusCode.ERROR for s in spans.children(agent))
    assert spans.named("task report") == []  # never started


def test_prompts_and_results_stay_out_unless_content_capture_is_on(
    spans: Spans, monkeypatch: pytest.MonkeyPatch
) -> None:
    _crew(FakeLLM([FakeToolCall("lookup", {"name": "Ann"}), "done", "report"]), tracing=True).kickoff()
    keys = {k for s in spans.all for k in s.attributes}
    assert not keys & {"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments",
                       "gen_ai.tool.call.result"}
    spans.exporter.clear()

    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    _crew(FakeLLM([FakeToolCall("lookup", {"name": "Ann"}), "done", "report"]), tracing=True).kickoff()
    chat = spans.named("chat fake")[0]
    messages = json.loads(str(chat.attributes["gen_ai.input.messages"]))
    assert any("Find Ann" in str(m.get("content")) for m in messages)
    tool_span = spans.one("execute_tool lookup")
    assert json.loads(str(tool_span.attributes["gen_ai.tool.call.arguments"])) == {"name": "Ann"}
    assert tool_span.attributes["gen_ai.tool.call.result"] == "Ann: 555-0101"
    last = spans.named("chat fake")[-1]
    assert json.loads(str(last.attributes["gen_ai.output.messages"])) == [{"role": "assistant", "content": "report"}]


def test_tracing_is_off_by_default_and_the_env_var_turns_it_on(spans: Spans, monkeypatch: pytest.MonkeyPatch) -> None:
    _crew(FakeLLM(["a", "b"])).kickoff()
    assert spans.all == []
    monkeypatch.setenv("CREWGRAPH_TRACING", "true")
    _crew(FakeLLM(["a", "b"])).kickoff()
    assert len(spans.named("crew crew")) == 1
    spans.exporter.clear()
    _crew(FakeLLM(["a", "b"]), tracing=False).kickoff()  # the crew's own setting wins
    assert spans.all == []


def test_the_run_is_a_child_of_the_callers_span(spans: Spans) -> None:
    tracer = spans.provider.get_tracer("app")
    with tracer.start_as_current_span("request"):
        _crew(FakeLLM(["a", "b"]), tracing=True).kickoff()
    request, crew = spans.one("request"), spans.one("crew crew")
    assert spans.parent(crew) is request


def test_concurrent_kickoffs_get_separate_trees(spans: Spans) -> None:
    async def both() -> None:
        await asyncio.gather(
            _crew(FakeLLM(["a1", "a2"]), tracing=True, name="alpha").kickoff_async(),
            _crew(FakeLLM(["b1", "b2"]), tracing=True, name="beta").kickoff_async(),
        )

    asyncio.run(both())
    alpha, beta = spans.one("crew alpha"), spans.one("crew beta")
    assert alpha.context.trace_id != beta.context.trace_id
    for root in (alpha, beta):
        tasks = spans.children(root)
        assert [s.name for s in tasks] == ["task find", "task report"], spans.tree()
        assert all(s.context.trace_id == root.context.trace_id for s in tasks)


def test_without_an_sdk_the_run_works_and_no_listener_fails(
    spans: Spans, caplog: pytest.LogCaptureFixture
) -> None:
    from opentelemetry.trace import NoOpTracerProvider

    from crewgraph.observability import use_tracer_provider

    use_tracer_provider(NoOpTracerProvider())  # the API alone: spans that record nothing
    with caplog.at_level("ERROR"):
        llm = FakeLLM([FakeToolCall("lookup", {"name": "Ann"}), "done", "report"])
        assert _crew(llm, tracing=True).kickoff().raw == "report"
    assert [r for r in caplog.records if "event handler" in r.getMessage()] == []
    assert spans.all == []


def test_without_the_api_a_traced_run_names_the_extra(spans: Spans, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from crewgraph.errors import MissingExtraError

    monkeypatch.setitem(sys.modules, "opentelemetry.trace", None)  # as if opentelemetry-api were absent
    with pytest.raises(MissingExtraError, match=r"crewgraph\[otel\]"):
        _crew(FakeLLM(["a", "b"]), tracing=True).kickoff()
