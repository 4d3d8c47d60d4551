"""Crew end to end on FakeLLM: outputs, files, callbacks, events, parallelism, rate limits."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from crewgraph import Agent, Crew, CrewOutput, Process, Task, TaskOutput
from crewgraph.events import (
    AgentExecutionCompletedEvent,
    AgentExecutionStartedEvent,
    CrewKickoffCompletedEvent,
    CrewKickoffFailedEvent,
    CrewKickoffStartedEvent,
    LLMCallCompletedEvent,
    LLMCallStartedEvent,
    TaskCompletedEvent,
    TaskFailedEvent,
    TaskStartedEvent,
)
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.llm.base import BaseLLM
from crewgraph.llm.types import LLMResponse
from crewgraph.outputs import UsageMetrics
from crewgraph.testing import FakeLLM


class Summary(BaseModel):
    topic: str
    points: list[str]


def two_task_crew(llm: BaseLLM, **crew_kw: Any) -> Crew:
    researcher = Agent(role="Researcher", goal="Research {topic}", backstory="Curious", llm=llm)
    writer = Agent(role="Writer", goal="Write", backstory="Clear", llm=llm)
    research = Task(name="research", description="Research {topic}", expected_output="notes", agent=researcher)
    write = Task(name="write", description="Write about {topic}", expected_output="post", agent=writer)
    return Crew(agents=[researcher, writer], tasks=[research, write], **crew_kw)


def test_kickoff_returns_crew_output_with_usage() -> None:
    llm = FakeLLM(responses=["notes on AI", "a post on AI"])
    out = two_task_crew(llm).kickoff(inputs={"topic": "AI"})
    assert isinstance(out, CrewOutput)
    assert out.raw == "a post on AI" == str(out)
    assert [t.raw for t in out.tasks_output] == ["notes on AI", "a post on AI"]
    assert [t.agent for t in out.tasks_output] == ["Researcher", "Writer"]
    assert out.token_usage.successful_requests == 2
    assert out.token_usage.total_tokens == sum(t.token_usage.total_tokens for t in out.tasks_output)
    assert "notes on AI" in llm.calls[1].prompt  # sequential: previous output is context
    assert out.to_dict() == {}
    assert out.graph is not None and out.run_id


def test_structured_output_and_output_file(tmp_path: Path) -> None:
    llm = FakeLLM(responses=['{"topic": "AI", "points": ["a", "b"]}'])
    a = Agent(role="R", goal="g", llm=llm)
    target = tmp_path / "deep" / "{topic}.json"
    t = Task(description="Summarise {topic}", expected_output="summary", agent=a,
             output_pydantic=Summary, output_file=str(target))
    out = Crew(agents=[a], tasks=[t]).kickoff({"topic": "AI"})
    assert out.pydantic == Summary(topic="AI", points=["a", "b"])
    assert out["points"] == ["a", "b"]
    assert json.loads((tmp_path / "deep" / "AI.json").read_text()) == {"topic": "AI", "points": ["a", "b"]}
    schema_hint = llm.calls[0].prompt
    assert '"points"' in schema_hint


def test_output_json_fills_json_dict() -> None:
    llm = FakeLLM(responses=['{"topic": "x", "points": []}'])
    a = Agent(role="R", goal="g", llm=llm)
    out = Crew(agents=[a], tasks=[Task(description="d", expected_output="e", agent=a, output_json=Summary)]).kickoff()
    assert out.json_dict == {"topic": "x", "points": []}
    assert out.tasks_output[0].output_format.value == "json"


def test_callbacks_and_kickoff_hooks() -> None:
    seen: list[str] = []
    llm = FakeLLM(responses=["one", "two"])
    crew = two_task_crew(llm, task_callback=lambda o: seen.append(f"crew:{o.raw}"))
    crew.tasks[0].callback = lambda o: seen.append(f"task:{o.raw}")
    crew.before_kickoff_callbacks.append(lambda inputs: {**inputs, "topic": "changed"})

    def after(out: CrewOutput) -> CrewOutput:
        out.raw += " [post-processed]"
        return out

    crew.after_kickoff_callbacks.append(after)
    out = crew.kickoff({"topic": "orig"})
    assert seen == ["task:one", "crew:one", "crew:two"]
    assert out.raw == "two [post-processed]"
    assert "Research changed" in llm.calls[0].prompt
    assert crew.usage_metrics == out.token_usage


def test_events_of_a_run_in_order() -> None:
    names: list[str] = []
    types = (CrewKickoffStartedEvent, TaskStartedEvent, AgentExecutionStartedEvent, LLMCallStartedEvent,
             LLMCallCompletedEvent, AgentExecutionCompletedEvent, TaskCompletedEvent, CrewKickoffCompletedEvent)
    with crewgraph_event_bus.scoped_handlers():
        for et in types:
            crewgraph_event_bus.on(et)(lambda s, e: names.append(e.type))
        out = two_task_crew(FakeLLM(responses=["a", "b"])).kickoff({"topic": "t"})
    per_task = ["task_started", "agent_execution_started", "llm_call_started", "llm_call_completed",
                "agent_execution_completed", "task_completed"]
    assert names == ["crew_kickoff_started", *per_task, *per_task, "crew_kickoff_completed"]
    assert out.run_id


def test_failure_emits_failed_events_and_raises() -> None:
    seen: list[Any] = []
    llm = FakeLLM(responses=[ValueError("model exploded")] * 5)
    crew = two_task_crew(llm)
    crew.agents[0].max_retry_limit = 0
    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.on(TaskFailedEvent)(lambda s, e: seen.append(e))
        crewgraph_event_bus.on(CrewKickoffFailedEvent)(lambda s, e: seen.append(e))
        with pytest.raises(Exception, match="model exploded"):
            crew.kickoff({"topic": "t"})
    assert [type(e).__name__ for e in seen] == ["TaskFailedEvent", "CrewKickoffFailedEvent"]
    assert seen[0].task_name == "research"


class BarrierLLM(BaseLLM):
    """Answers only once ``n`` calls are in flight at the same time (proves concurrency)."""

    model = "barrier"

    def __init__(self, n: int) -> None:
        self.n = n
        self.waiting = 0
        self.event: asyncio.Event | None = None

    async def acall(self, messages: list[dict[str, Any]], **kw: Any) -> LLMResponse:
        if self.event is None:
            self.event = asyncio.Event()
        self.waiting += 1
        if self.waiting >= self.n:
            self.event.set()
        await asyncio.wait_for(self.event.wait(), 5)
        return LLMResponse(content="done", usage=UsageMetrics(total_tokens=1, successful_requests=1))


def test_parallel_process_runs_independent_tasks_at_once() -> None:
    llm = BarrierLLM(4)
    a = Agent(role="R", goal="g", llm=llm)
    tasks = [Task(description=f"topic {i}", expected_output="x", agent=a) for i in range(4)]
    out = Crew(agents=[a], tasks=tasks, process=Process.parallel).kickoff()
    assert [t.raw for t in out.tasks_output] == ["done"] * 4


def test_sequential_async_tasks_overlap() -> None:
    llm = BarrierLLM(2)
    a = Agent(role="R", goal="g", llm=llm)
    t1 = Task(description="a", expected_output="x", agent=a, async_execution=True)
    t2 = Task(description="b", expected_output="x", agent=a, async_execution=True)
    t3 = Task(description="c", expected_output="x", agent=a)  # a crew ends with at most one async task
    out = Crew(agents=[a], tasks=[t1, t2, t3]).kickoff()
    assert len(out.tasks_output) == 3


def test_kickoff_async_and_for_each() -> None:
    llm = FakeLLM(default=lambda req: "re: " + req.messages[1]["content"].split("\n")[0])
    crew = two_task_crew(llm)
    outs = crew.kickoff_for_each([{"topic": "A"}, {"topic": "B"}])
    assert [o.tasks_output[0].raw for o in outs] == ["re: Current Task: Research A", "re: Current Task: Research B"]
    outs2 = asyncio.run(crew.kickoff_for_each_async([{"topic": "C"}, {"topic": "D"}]))
    assert sorted(o.tasks_output[0].raw for o in outs2) == ["re: Current Task: Research C", "re: Current Task: Research D"]
    assert asyncio.run(crew.kickoff_async({"topic": "E"})).raw.startswith("re: Current Task: Write about E")


def test_max_rpm_limits_model_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    from crewgraph.llm import rate_limit

    acquired: list[str] = []
    real = rate_limit.RPMLimiter

    class Spy(real):  # type: ignore[misc, valid-type]
        async def acquire(self) -> None:
            acquired.append(str(self.max_rpm))
            await super().acquire()

    monkeypatch.setattr(rate_limit, "RPMLimiter", Spy)
    llm = FakeLLM(responses=["a", "b"])
    crew = two_task_crew(llm, max_rpm=100)
    crew.agents[0].max_rpm = 50
    crew.kickoff({"topic": "t"})
    assert acquired == ["50", "100", "100"]


def test_verbose_prints_a_live_log_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    two_task_crew(FakeLLM(responses=["notes", "post"]), verbose=True).kickoff({"topic": "t"})
    printed = capsys.readouterr()
    log = printed.err
    assert "Crew crew started" in log and "Task research" in log and "Task done write" in log
    assert printed.out == ""  # stdout stays for the answer (`crewgraph run > answer.md`)
    two_task_crew(FakeLLM(responses=["notes", "post"])).kickoff({"topic": "t"})
    assert capsys.readouterr() == ("", "")


def test_task_output_str_and_dict() -> None:
    t = TaskOutput(description="d", raw="r", pydantic=Summary(topic="t", points=[]))
    assert t.to_dict() == {"topic": "t", "points": []}
    assert "topic='t'" in str(t)


def test_guardrail_redo_keeps_the_context_of_earlier_tasks() -> None:
    def short(out: TaskOutput) -> tuple[bool, Any]:
        return (True, out.raw) if len(out.raw) < 10 else (False, "shorter please")

    llm = FakeLLM(responses=["FIRST TASK NOTES", "a very long answer indeed", "short"])
    crew = two_task_crew(llm)
    crew.tasks[1].guardrail = short
    out = crew.kickoff({"topic": "t"})
    assert out.raw == "short"
    redo_prompt = llm.calls[2].prompt
    assert "FIRST TASK NOTES" in redo_prompt and "shorter please" in redo_prompt


def test_crew_cache_off_disables_tool_caching_and_exhausted_fake_surfaces() -> None:
    from crewgraph.testing import FakeLLMExhaustedError, FakeToolCall
    from crewgraph.tools import tool

    seen: list[str] = []

    @tool("Echo")
    def echo(text: str) -> str:
        """Echo the text."""
        seen.append(text)
        return text

    call = [FakeToolCall("Echo", {"text": "Z"})]
    a = Agent(role="R", goal="g", tools=[echo], llm=FakeLLM(responses=[call, call, "done"]))
    Crew(agents=[a], tasks=[Task(description="d", expected_output="e", agent=a)], cache=False).kickoff()
    assert seen == ["Z", "Z"]
    short = Agent(role="R", goal="g", llm=FakeLLM(responses=[]))
    with pytest.raises(FakeLLMExhaustedError):
        Crew(agents=[short], tasks=[Task(description="d", expected_output="e", agent=short)]).kickoff()


def test_max_execution_time_bounds_the_whole_task_including_tool_calls() -> None:
    import threading

    from crewgraph.errors import NodeTimeoutError
    from crewgraph.testing import FakeToolCall
    from crewgraph.tools import tool

    release = threading.Event()
    finished = threading.Event()

    @tool("Slow")
    def slow(x: int) -> str:
        """A tool that hangs well past the 0.3 s deadline."""
        release.wait(2)
        finished.set()
        return "late"

    a = Agent(role="R", goal="g", tools=[slow], max_execution_time=0.3, max_retry_limit=0,
              llm=FakeLLM(responses=[[FakeToolCall("Slow", {"x": 1})], "never reached"]))
    crew = Crew(agents=[a], tasks=[Task(name="wait", description="d", expected_output="e", agent=a)])
    try:
        with pytest.raises(NodeTimeoutError, match="timed out"):
            crew.kickoff()
        assert not finished.is_set()  # kickoff returned at the deadline, not after the hung tool
    finally:
        release.set()
