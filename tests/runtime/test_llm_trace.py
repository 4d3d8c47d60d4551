"""Model-call tracing costs nothing when nobody listens, and the run graph keeps its LLM records.

Counts, not timings: with no bus listener not one LLM call event is constructed during a
kickoff (the run graph's tracer is fed directly); with a listener every call's events
arrive as before, and the records are the same either way.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.events.llm_events import (
    LLMCallCompletedEvent,
    LLMCallFailedEvent,
    LLMCallRetryEvent,
    LLMCallStartedEvent,
)
from crewgraph.graph import ExecutionGraph, Node, NodeContext, NodeResult
from crewgraph.runtime import Scheduler
from crewgraph.runtime.llm_trace import LLMCallTracer
from crewgraph.testing import FakeLLM

LLM_EVENTS = (LLMCallStartedEvent, LLMCallCompletedEvent, LLMCallFailedEvent, LLMCallRetryEvent)


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """How many objects of each LLM event class were constructed (on an empty bus)."""
    counts: Counter[str] = Counter()
    for cls in LLM_EVENTS:
        original = cls.__init__

        def counting(self: Any, *args: Any, _original: Any = original, _name: str = cls.__name__, **kw: Any) -> None:
            counts[_name] += 1
            _original(self, *args, **kw)

        monkeypatch.setattr(cls, "__init__", counting)
    with crewgraph_event_bus.scoped_handlers():
        yield counts


def _crew() -> Crew:
    agent = Agent(role="Writer", goal="write", backstory="b", llm=FakeLLM(["one", "two", "three"]))
    tasks = [Task(name=f"t{i}", description=f"task {i}", expected_output="text", agent=agent) for i in range(3)]
    return Crew(agents=[agent], tasks=tasks)


def _llm_records(out: Any) -> dict[str, tuple[str, str, Any]]:
    return {
        r.node_id: (r.status, r.parent, r.info["total_tokens"])
        for r in out.graph.records() if r.kind == "llm"
    }


def test_no_listener_builds_no_llm_event_yet_the_run_graph_records_each_call(built: Counter[str]) -> None:
    out = _crew().kickoff()
    assert out.raw == "three"
    assert sum(built.values()) == 0, dict(built)
    records = _llm_records(out)
    assert sorted(records) == ["t1_t0.agent.llm1", "t2_t1.agent.llm1", "t3_t2.agent.llm1"]
    assert all(status == "completed" and tokens > 0 for status, _, tokens in records.values())
    assert out.graph.record("t1_t0.agent").info["llm_calls"] == 1


def test_a_listener_gets_every_call_as_before_and_the_records_do_not_change(built: Counter[str]) -> None:
    quiet = _llm_records(_crew().kickoff())
    seen: list[tuple[str, str | None]] = []

    def on_started(source: Any, event: LLMCallStartedEvent) -> None:
        seen.append(("started", event.node_id))

    def on_completed(source: Any, event: LLMCallCompletedEvent) -> None:
        seen.append(("completed", event.node_id))

    crewgraph_event_bus.register_handler(LLMCallStartedEvent, on_started)
    crewgraph_event_bus.register_handler(LLMCallCompletedEvent, on_completed)
    out = _crew().kickoff()
    assert built["LLMCallStartedEvent"] == 3 and built["LLMCallCompletedEvent"] == 3
    assert seen == [(kind, f"t{i}_t{i - 1}.agent") for i in (1, 2, 3) for kind in ("started", "completed")]
    assert _llm_records(out) == quiet


def test_a_listener_of_one_kind_only_gets_that_kind_built(built: Counter[str]) -> None:
    crewgraph_event_bus.register_handler(LLMCallCompletedEvent, lambda source, event: None)
    out = _crew().kickoff()
    assert dict(built) == {"LLMCallCompletedEvent": 3}
    assert all(status == "completed" for status, _, _ in _llm_records(out).values())


@dataclass(frozen=True, kw_only=True)
class Replayed(Node):
    """Emits events built elsewhere, as the driver does with a remote worker's events."""

    kind: ClassVar[str] = "replayed"

    async def run(self, ctx: NodeContext) -> NodeResult:
        ctx.emit(LLMCallStartedEvent(model="m", tools=["search"]))
        ctx.emit(LLMCallRetryEvent(model="m", attempt=1, wait_seconds=0.0, error="HTTP 429"))
        ctx.emit(LLMCallCompletedEvent(model="m", total_tokens=7, prompt_tokens=5, completion_tokens=2))
        ctx.emit(LLMCallStartedEvent(model="m"))
        ctx.emit(LLMCallFailedEvent(model="m", error="HTTP 500", status_code=500))
        return NodeResult(output="ok")


def test_events_built_elsewhere_feed_the_tracer_through_the_node_emitter() -> None:
    graph = ExecutionGraph("replay")
    graph.add_node(Replayed(id="step"))
    scheduler = Scheduler(graph)
    with crewgraph_event_bus.scoped_handlers(), LLMCallTracer(scheduler):
        assert scheduler.llm_tracer is not None
        result = asyncio.run(scheduler.run())
    assert scheduler.llm_tracer is None
    first, second = result.run_graph.record("step.llm1"), result.run_graph.record("step.llm2")
    assert (first.status, first.attempts, first.info["total_tokens"]) == ("completed", 2, 7)
    assert first.info["retry_errors"] == ["HTTP 429"] and first.info["tools"] == ["search"]
    assert (second.status, second.error, second.info["status_code"]) == ("failed", "HTTP 500", 500)
