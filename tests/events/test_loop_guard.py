"""An ``async def`` handler that blocks the loop is named, and then runs off the loop."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import Any

import pytest

from crewgraph import Agent, Crew, Process, Task
from crewgraph.events import TaskStartedEvent
from crewgraph.events._loop_guard import LoopGuard
from crewgraph.events.bus import CrewGraphEventsBus
from crewgraph.events.event_bus import crewgraph_event_bus
from crewgraph.testing import FakeLLM
from crewgraph.testing.fake_llm import FakeRequest


def _parallel_crew(llm: FakeLLM, n: int = 2) -> Crew:
    agent = Agent(role="Worker", goal="Work", backstory="Works.", llm=llm)
    tasks = [Task(name=f"job{i}", description=f"Job {i}", expected_output="done", agent=agent) for i in range(n)]
    return Crew(agents=[agent], tasks=tasks, process=Process.parallel)


def test_a_handler_sleeping_in_async_def_is_named_and_then_no_longer_stalls_the_run(
    caplog: pytest.LogCaptureFixture,
) -> None:
    job1_called = threading.Event()
    seen: list[bool] = []
    loop_threads: set[int] = set()
    handler_threads: list[int] = []

    def reply(request: FakeRequest) -> str:
        loop_threads.add(threading.get_ident())
        if "Job 1" in request.prompt:
            job1_called.set()
        return "done"

    async def blocking_handler(source: Any, event: TaskStartedEvent) -> None:
        handler_threads.append(threading.get_ident())
        if event.task_name != "job0":
            return
        if not seen:
            time.sleep(0.3)  # the mistake: a blocking call inside async def
            seen.append(False)
            return
        # Second run: on the loop this would wait in vain (job1 cannot start while the loop
        # is blocked); off it, job1's model call happens meanwhile.
        seen.append(job1_called.wait(10))

    guard = crewgraph_event_bus.loop_guard
    mark = guard.mark()
    with crewgraph_event_bus.scoped_handlers(), caplog.at_level(logging.WARNING, logger="crewgraph.events"):
        crewgraph_event_bus.on(TaskStartedEvent)(blocking_handler)
        first = _parallel_crew(FakeLLM(default=reply)).kickoff()
        found = guard.since(mark)
        job1_called.clear()
        second = _parallel_crew(FakeLLM(default=reply)).kickoff()
    assert [t.raw for t in first.tasks_output + second.tasks_output] == ["done"] * 4
    assert len(found) == 1 and found[0].handler.endswith("blocking_handler")
    assert found[0].event_type == "task_started" and found[0].seconds >= 0.3
    assert "blocking_handler held the run's event loop" in caplog.text
    assert "it now runs in a thread of its own" in caplog.text
    assert seen == [False, True]
    assert guard.blocking(blocking_handler)
    assert not set(handler_threads[-2:]) & loop_threads  # the second run's calls ran off the loop
    assert guard.since(mark) == found  # reported once, not per event


def test_handlers_that_only_await_are_left_on_the_loop() -> None:
    bus = CrewGraphEventsBus()
    threads: list[int] = []

    async def polite(source: Any, event: TaskStartedEvent) -> None:
        for _ in range(5):
            await asyncio.sleep(0.06)  # 0.3 s in all, but never holding the loop
        threads.append(threading.get_ident())

    bus.on(TaskStartedEvent)(polite)

    async def main() -> int:
        await bus.aemit(None, TaskStartedEvent(task_name="t"))
        return threading.get_ident()

    loop_thread = asyncio.run(main())
    assert threads == [loop_thread]
    assert not bus.loop_guard.blocking(polite) and bus.loop_guard.since(0) == []


def test_the_guard_passes_results_errors_and_cancellation_through() -> None:
    guard = LoopGuard(limit=10)

    async def value(source: Any, event: Any) -> int:
        await asyncio.sleep(0)
        return 7

    async def fails(source: Any, event: Any) -> None:
        await asyncio.sleep(0)
        raise KeyError("boom")

    cancelled = []

    async def waits(source: Any, event: Any) -> None:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    async def main() -> None:
        assert await guard.run(value, None, None) == 7
        with pytest.raises(KeyError):
            await guard.run(fails, None, None)
        task = asyncio.ensure_future(guard.run(waits, None, None))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert cancelled == [True]
    assert guard.since(0) == []


def test_the_cli_run_summary_names_the_blocking_handler() -> None:
    from rich.console import Console

    from crewgraph.cli._progress import NodeProgress

    bus = CrewGraphEventsBus()
    bus.loop_guard.limit = 0.05

    async def slow(source: Any, event: TaskStartedEvent) -> None:
        time.sleep(0.1)

    bus.on(TaskStartedEvent)(slow)
    progress = NodeProgress(Console(file=None, quiet=True), bus, show=False)
    with progress:
        asyncio.run(bus.aemit(None, TaskStartedEvent(task_name="t")))
    assert len(progress.warnings) == 1
    assert "slow held the run's event loop" in progress.warnings[0]
