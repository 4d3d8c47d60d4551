"""Slow user code does not stall a run: event handlers and callbacks run off the scheduler.

A parallel crew of ``--tasks`` tasks whose model takes ``--latency`` seconds is run
three times: with no handler, with a sync handler sleeping ``--sleep`` seconds on every
TaskStartedEvent, with the same sleep inside an ``async def`` handler (the loop guard names
it and moves it off the loop after its first blocking call), and with a ``task_callback``
sleeping as long. Before handlers and
callbacks moved off the scheduler's thread, each sleep blocked every node of the run
(4 tasks, 1.2 s model, 5 s handler: 4.8 s became 22.3 s).

    .venv/bin/python scripts/bench_handlers.py [--tasks 4] [--latency 1.2] [--sleep 5]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from crewgraph import Agent, Crew, Process, Task
from crewgraph.events import TaskStartedEvent
from crewgraph.events.event_bus import crewgraph_event_bus
from crewgraph.testing import FakeLLM


def _crew(n: int, latency: float, **crew_options: Any) -> Crew:
    agent = Agent(role="Worker", goal="Work", backstory="Works.", llm=FakeLLM(default="done", latency=latency))
    tasks = [Task(name=f"job{i}", description=f"Job {i}", expected_output="done", agent=agent) for i in range(n)]
    return Crew(agents=[agent], tasks=tasks, process=Process.parallel, **crew_options)


def _timed(crew: Crew) -> float:
    start = time.perf_counter()
    crew.kickoff()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=4)
    parser.add_argument("--latency", type=float, default=1.2)
    parser.add_argument("--sleep", type=float, default=5.0)
    args = parser.parse_args()

    plain = _timed(_crew(args.tasks, args.latency))
    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.on(TaskStartedEvent)(lambda source, event: time.sleep(args.sleep))
        handler = _timed(_crew(args.tasks, args.latency))

    async def blocking(source: Any, event: Any) -> None:
        time.sleep(args.sleep)  # the mistake the loop guard catches

    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.on(TaskStartedEvent)(blocking)
        async_first = _timed(_crew(args.tasks, args.latency))
        async_after = _timed(_crew(args.tasks, args.latency))
    callback = _timed(_crew(args.tasks, args.latency, task_callback=lambda output: time.sleep(args.sleep)))
    serial = args.tasks * args.sleep + args.latency
    print(f"{args.tasks} parallel tasks, model {args.latency:.1f} s, user code sleeping {args.sleep:.1f} s")
    print(f"  no handler:                     {plain:6.2f} s")
    print(f"  sync handler on TaskStarted:    {handler:6.2f} s  (on the scheduler's thread: >= {serial:.1f} s)")
    print(f"  async handler, first run:       {async_first:6.2f} s  (one blocking call found, then off the loop)")
    print(f"  async handler, next run:        {async_after:6.2f} s  (on the scheduler's loop: >= {serial:.1f} s)")
    print(f"  task_callback:                  {callback:6.2f} s  (on the scheduler's thread: >= {serial:.1f} s)")


if __name__ == "__main__":
    main()
