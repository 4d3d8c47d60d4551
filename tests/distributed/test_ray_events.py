"""Events on Ray: a worker builds only the events someone on the driver listens to.

A step run on a worker has no handlers there; the driver tells it who listens
(``StepPayload.listened``), so an event nobody takes is neither built on the worker nor
pickled back (a model call's events carry its whole prompt). The run graph's model-call
records still come back, as recorder calls replayed in order with the events. These tests
read the replies the driver unpickles.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.events import crewgraph_event_bus
from crewgraph.events.agent_events import AgentExecutionStartedEvent
from crewgraph.events.base import BaseEvent
from crewgraph.events.crew_events import TaskStartedEvent
from crewgraph.events.llm_events import LLMCallCompletedEvent, LLMCallStartedEvent
from crewgraph.testing import FakeLLM


@pytest.fixture(autouse=True)
def _ray_installed() -> None:
    pytest.importorskip("ray")


@pytest.fixture
def replied(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """What came back from the workers: events by class name, and recorder calls as ``trace.<method>``."""
    import crewgraph.distributed._session as session
    from crewgraph.distributed._worker import TraceCall

    seen: Counter[str] = Counter()
    loads = session.loads

    def counting(data: bytes) -> Any:
        reply = loads(data)
        for event in getattr(reply, "events", None) or ():
            seen[f"trace.{event.method}" if type(event) is TraceCall else type(event).__name__] += 1
        return reply

    monkeypatch.setattr(session, "loads", counting)
    with crewgraph_event_bus.scoped_handlers():
        yield seen


def _crew(n: int = 3) -> Crew:
    agent = Agent(role="Writer", goal="write", backstory="b", llm=FakeLLM(default="done"), max_retry_limit=0)
    tasks = [Task(name=f"t{i}", description=f"task {i}", expected_output="text", agent=agent) for i in range(n)]
    return Crew(agents=[agent], tasks=tasks)


def _llm_records(out: Any) -> dict[str, tuple[str, Any]]:
    return {r.node_id: (r.status, r.info.get("total_tokens")) for r in out.graph.records() if r.kind == "llm"}


@pytest.mark.parametrize("batch_chains", [True, False])
def test_no_listener_no_event_comes_back_yet_the_run_graph_records_each_call(
    ray_cluster: Any, replied: Counter[str], batch_chains: bool
) -> None:
    from crewgraph.distributed import RayExecutor

    local = _llm_records(_crew().kickoff())
    out = _crew().kickoff(executor=RayExecutor(batch_chains=batch_chains))
    assert out.raw == "done"
    assert {k: v for k, v in replied.items() if not k.startswith("trace.")} == {}
    assert replied["trace.started"] == 3 and replied["trace.completed"] == 3
    assert _llm_records(out) == local
    assert all(status == "completed" and tokens for status, tokens in local.values())


def test_a_listener_gets_its_kinds_only_and_the_records_are_whole(ray_cluster: Any, replied: Counter[str]) -> None:
    """A handler for task starts and model-call ends only: those come back built, nothing else
    does, and each call's record (its start a recorder call, its end an event) completes."""
    from crewgraph.distributed import RayExecutor

    local = _llm_records(_crew().kickoff())
    got: list[tuple[str, str | None]] = []

    def on_task(source: Any, event: TaskStartedEvent) -> None:
        got.append(("task", event.node_id))

    def on_completed(source: Any, event: LLMCallCompletedEvent) -> None:
        got.append(("llm", event.node_id))

    crewgraph_event_bus.register_handler(TaskStartedEvent, on_task)
    crewgraph_event_bus.register_handler(LLMCallCompletedEvent, on_completed)
    out = _crew().kickoff(executor=RayExecutor())
    crewgraph_event_bus.flush()
    assert replied["TaskStartedEvent"] == 3 and replied["LLMCallCompletedEvent"] == 3
    assert replied["LLMCallStartedEvent"] == 0 and replied["AgentExecutionStartedEvent"] == 0
    assert replied["trace.started"] == 3 and replied["trace.completed"] == 0
    assert Counter(kind for kind, _ in got) == {"task": 3, "llm": 3}
    assert all(node_id for _, node_id in got)
    assert _llm_records(out) == local


def test_a_handler_of_a_base_class_listens_to_its_subclasses(ray_cluster: Any, replied: Counter[str]) -> None:
    from crewgraph.distributed import RayExecutor

    kinds: Counter[str] = Counter()

    def on_any(source: Any, event: BaseEvent) -> None:
        kinds[type(event).__name__] += 1

    crewgraph_event_bus.register_handler(BaseEvent, on_any)
    _crew(2).kickoff(executor=RayExecutor())
    crewgraph_event_bus.flush()
    for kind in (TaskStartedEvent, AgentExecutionStartedEvent, LLMCallStartedEvent, LLMCallCompletedEvent):
        assert replied[kind.__name__] == 2 and kinds[kind.__name__] == 2, kind
    assert not any(k.startswith("trace.") for k in replied)  # the events feed the records
