"""Sync event handlers never run on the scheduler's thread, and still see events in order."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from crewgraph import Agent, Crew, Process, Task
from crewgraph.events import TaskCompletedEvent, TaskStartedEvent
from crewgraph.events.bus import CrewGraphEventsBus
from crewgraph.events.event_bus import crewgraph_event_bus
from crewgraph.events.flow_events import FlowStartedEvent
from crewgraph.testing import FakeLLM
from crewgraph.testing.fake_llm import FakeRequest


def _parallel_crew(llm: FakeLLM, n: int = 2) -> Crew:
    agent = Agent(role="Worker", goal="Work", backstory="Works.", llm=llm)
    tasks = [Task(name=f"job{i}", description=f"Job {i}", expected_output="done", agent=agent) for i in range(n)]
    return Crew(agents=[agent], tasks=tasks, process=Process.parallel)


def test_a_blocking_handler_does_not_stall_the_other_tasks() -> None:
    """The handler of job0's start waits for job1's model call: on the scheduler's thread
    it would wait in vain (the loop is blocked), off it job1 goes on."""
    job1_called = threading.Event()
    seen: dict[str, bool] = {}

    def reply(request: FakeRequest) -> str:
        if "Job 1" in request.prompt:
            job1_called.set()
        return "done"

    def on_start(source: Any, event: TaskStartedEvent) -> None:
        if event.task_name == "job0":
            seen["job1 ran meanwhile"] = job1_called.wait(10)

    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.on(TaskStartedEvent)(on_start)
        out = _parallel_crew(FakeLLM(default=reply)).kickoff()
    assert [t.raw for t in out.tasks_output] == ["done", "done"]
    assert seen == {"job1 ran meanwhile": True}


def test_handlers_run_off_the_loop_thread_and_have_run_when_kickoff_returns() -> None:
    loop_threads: set[int] = set()
    handler_threads: list[int] = []
    order: list[str] = []

    def reply(request: FakeRequest) -> str:
        loop_threads.add(threading.get_ident())  # FakeLLM.acall runs on the scheduler's loop
        return "done"

    def record(source: Any, event: Any) -> None:
        handler_threads.append(threading.get_ident())
        order.append(f"{type(event).__name__}:{event.task_name}")

    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.on(TaskStartedEvent)(record)
        crewgraph_event_bus.on(TaskCompletedEvent)(record)
        agent = Agent(role="Worker", goal="Work", backstory="Works.", llm=FakeLLM(default=reply))
        tasks = [Task(name=f"job{i}", description=f"Job {i}", expected_output="done", agent=agent) for i in range(3)]
        Crew(agents=[agent], tasks=tasks).kickoff()
    assert order == [f"{kind}:job{i}" for i in range(3) for kind in ("TaskStartedEvent", "TaskCompletedEvent")]
    assert loop_threads and not loop_threads & set(handler_threads)


def test_emit_from_a_loop_returns_before_the_handler_and_order_is_kept() -> None:
    bus = CrewGraphEventsBus()
    seen: list[int] = []
    release = threading.Event()

    def slow_first(source: Any, event: Any) -> None:
        if not seen:
            release.wait(5)
        seen.append(len(seen))

    bus.register_handler(FlowStartedEvent, slow_first)

    async def main() -> list[int]:
        futures = [bus.emit(None, FlowStartedEvent(flow_name=str(i))) for i in range(3)]
        snapshot = list(seen)  # nothing ran on this thread
        release.set()
        for fut in futures:
            await asyncio.wrap_future(fut)
        return snapshot

    assert asyncio.run(main()) == []
    assert seen == [0, 1, 2]
    assert bus.drain(1)


def test_a_handler_that_emits_does_not_deadlock() -> None:
    bus = CrewGraphEventsBus()
    seen: list[str] = []

    def outer(source: Any, event: FlowStartedEvent) -> None:
        seen.append(event.flow_name)
        if event.flow_name == "outer":
            bus.emit(None, FlowStartedEvent(flow_name="inner"))

    bus.register_handler(FlowStartedEvent, outer)

    async def main() -> None:
        bus.emit(None, FlowStartedEvent(flow_name="outer"))
        await bus.adrain(5)

    asyncio.run(main())
    assert seen == ["outer", "inner"]
