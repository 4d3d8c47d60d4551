"""With no listener, the events a kickoff builds do not grow with its tasks.

A count, not a timing: every event is a pydantic model (~10 us to build and stamp), so a
kickoff with nobody listening builds only its run-level events (kickoff started and
completed), none per task or per node; with a listener for one kind, that kind is built
once per task.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.events.base import BaseEvent
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.events.crew_events import TaskCompletedEvent
from crewgraph.testing import FakeLLM


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """How many events of each class were constructed (on an empty bus)."""
    counts: Counter[str] = Counter()
    original = BaseEvent.__init__

    def counting(self: Any, *args: Any, **kw: Any) -> None:
        counts[type(self).__name__] += 1
        original(self, *args, **kw)

    monkeypatch.setattr(BaseEvent, "__init__", counting)
    with crewgraph_event_bus.scoped_handlers():
        yield counts


def _kickoff(n: int) -> Any:
    agent = Agent(role="Writer", goal="write", backstory="b", llm=FakeLLM(default="done"))
    return Crew(agents=[agent], tasks=[Task(description=f"task {i}", expected_output="text", agent=agent)
                                       for i in range(n)]).kickoff()


def test_no_listener_no_event_per_task(built: Counter[str]) -> None:
    _kickoff(2)
    few = Counter(built)
    built.clear()
    out = _kickoff(6)
    assert len(out.tasks_output) == 6
    assert built == few, f"events built per task with no listener: {dict(built - few)}"
    assert set(built) <= {"CrewKickoffStartedEvent", "CrewKickoffCompletedEvent"}, dict(built)


def test_a_listener_gets_its_kind_once_per_task(built: Counter[str]) -> None:
    seen: list[str] = []
    crewgraph_event_bus.on(TaskCompletedEvent)(lambda _source, event: seen.append(event.task_name))
    _kickoff(3)
    assert built["TaskCompletedEvent"] == 3
    assert seen == ["task 0", "task 1", "task 2"]


def _tool_crew(n: int, process: Any, async_execution: bool) -> Any:
    from crewgraph import Process
    from crewgraph.testing import FakeToolCall
    from crewgraph.tools import tool

    @tool("lookup")
    def lookup(q: str) -> str:
        "Look something up."
        return "found " + q

    script: list[Any] = []
    for _ in range(n):
        script += [FakeToolCall("lookup", {"q": "x"}), "done"]
    agent = Agent(role="R", goal="g", backstory="b", llm=FakeLLM(responses=script), tools=[lookup])
    tasks = [Task(description=f"task {i}", expected_output="e", agent=agent, context=[],
                  async_execution=async_execution and i != n - 1) for i in range(n)]
    return Crew(agents=[agent], tasks=tasks, process=getattr(Process, process))


@pytest.mark.parametrize(("process", "async_execution"), [("sequential", False), ("parallel", False),
                                                         ("sequential", True)])
def test_no_listener_no_event_per_tool_call(built: Counter[str], process: str, async_execution: bool) -> None:
    """Tool calls, parallel and async tasks build no event either when nobody listens."""
    _tool_crew(2, process, async_execution).kickoff()
    few = Counter(built)
    built.clear()
    out = _tool_crew(5, process, async_execution).kickoff()
    assert len(out.tasks_output) == 5
    assert sum(r.kind == "tool" and r.parent is not None for r in out.graph.records()) == 5  # each made its call
    assert built == few, f"events built per task with no listener: {dict(built - few)}"


def _fan_out(n: int) -> Any:
    from crewgraph.flow import Flow, and_, listen, start

    async def root(self: Any) -> int:
        return 0

    body: dict[str, Any] = {"root": start()(root)}
    leaves = []
    for i in range(n):
        async def leaf(self: Any, *args: Any) -> int:
            return 1

        leaf.__name__ = leaf.__qualname__ = f"m{i}"
        body[f"m{i}"] = listen(body["root"])(leaf)
        leaves.append(body[f"m{i}"])

    async def end(self: Any, *args: Any) -> int:
        return 2

    body["end"] = listen(and_(*leaves))(end)
    return type("FanOut", (Flow,), body)()


def test_no_listener_no_event_per_flow_method(built: Counter[str]) -> None:
    """A fan-out flow joined by ``and_`` builds no event when nobody listens; a listener for
    one kind gets that kind once per method."""
    import asyncio

    from crewgraph.events.flow_events import MethodExecutionFinishedEvent

    asyncio.run(_fan_out(5).kickoff_async())
    assert built == Counter(), dict(built)
    finished: list[str] = []
    crewgraph_event_bus.on(MethodExecutionFinishedEvent)(lambda _source, event: finished.append(event.method_name))
    asyncio.run(_fan_out(5).kickoff_async())
    assert built["MethodExecutionFinishedEvent"] == 7  # root, five leaves, end
    assert sorted(finished) == sorted(["root", "end"] + [f"m{i}" for i in range(5)])
