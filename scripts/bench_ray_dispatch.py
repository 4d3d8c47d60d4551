"""Dispatch cost per task on Ray vs local, with and without chain batching (not a test).

Crews of N tasks with an instant model, run with the default local executor and with
``RayExecutor`` on a local Ray (started here, 2 CPUs): ``batch_chains=False`` ships
every node step alone (one Ray round trip per step), ``batch_chains=True`` (the
default) ships each task's chain -- agent step, its tool calls, the step resumed,
output conversion, guardrail -- as one Ray task. Two task shapes:

- ``plain``: one model turn (one agent step per task);
- ``tools``: a tool call, ``output_pydantic`` and a guardrail (five steps per task:
  step, tool call, step resumed, convert, guardrail).

Each in sequential order (one task at a time: every round trip is on the critical
path) and with ``Process.parallel`` (independent tasks overlap on the workers). The
figures are wall time per task and Ray tasks submitted per task
(``RayExecutor.dispatches``). The model is a FakeLLM hosted in one actor on Ray, so
its calls add one more round trip per model turn either way; ``--server`` uses
crewgraph's local OpenAI-compatible server and a real ``LLM`` instead (rebuilt on
each worker).

Run: PYTHONPATH=. .venv/bin/python scripts/bench_ray_dispatch.py [--tasks 40] [--runs 3] [--server]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

from pydantic import BaseModel

from crewgraph.tools import tool


class Product(BaseModel):
    value: int


@tool("multiply")
def multiply(a: int, b: int) -> str:
    """Multiply two numbers."""
    return str(a * b)


def _positive(output: Any) -> tuple[bool, Any]:
    return (True, output) if output.pydantic and output.pydantic.value > 0 else (False, "must be positive")


def _answer(request: Any) -> Any:
    from crewgraph.testing import FakeToolCall

    if not request.tool_names:
        return "ok"
    if not any(m.get("role") == "tool" for m in request.messages):
        return FakeToolCall("multiply", {"a": 6, "b": 7})
    return '{"value": 42}'


def _crew(n: int, llm: Any, shape: str, parallel: bool) -> Any:
    from crewgraph import Agent, Crew, Process, Task

    tools = [multiply] if shape == "tools" else []
    agent = Agent(role="Worker", goal="answer", backstory="fast", llm=llm, tools=tools, max_retry_limit=0)
    extra: dict[str, Any] = {"output_pydantic": Product, "guardrail": _positive} if shape == "tools" else {}
    tasks = [Task(name=f"t{i}", description=f"task {i}", expected_output="x", agent=agent,
                  context=[] if parallel else None, **extra) for i in range(n)]
    return Crew(agents=[agent], tasks=tasks, process=Process.parallel if parallel else Process.sequential)


def _model(server: Any) -> Any:
    if server is not None:
        from crewgraph import LLM

        return LLM(model="crewgraph-test", base_url=server.base_url, api_key="x")
    from crewgraph.testing import FakeLLM

    return FakeLLM(default=_answer)


def _time(n: int, executor: Any, shape: str, parallel: bool, server: Any, runs: int) -> tuple[float, float]:
    """Median wall seconds per task, and Ray tasks submitted per task."""
    walls: list[float] = []
    before = getattr(executor, "dispatches", 0)
    for _ in range(runs):
        crew = _crew(n, _model(server), shape, parallel)
        start = time.perf_counter()
        crew.kickoff(executor=executor)
        walls.append(time.perf_counter() - start)
    sent = (getattr(executor, "dispatches", 0) - before) / runs
    return statistics.median(walls) / n, sent / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=40)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--server", action="store_true", help="a real LLM against the local test server")
    args = parser.parse_args()
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # everything on 127.0.0.1
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray

    from crewgraph.distributed import RayExecutor

    t = time.perf_counter()
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    print(f"ray.init(num_cpus=2): {time.perf_counter() - t:.1f} s")
    server = None
    if args.server:
        from crewgraph.testing import OpenAICompatServer

        server = OpenAICompatServer(default="ok").start()
    per_step = RayExecutor(num_cpus_per_node=0.5, batch_chains=False)
    batched = RayExecutor(num_cpus_per_node=0.5)
    for warm in (per_step, batched):  # warm the workers: imports happen once per worker
        _time(8, warm, "tools", True, server, 1)
    print(f"{args.tasks} tasks, model: {'LLM over the local server' if server else 'FakeLLM (hosted, instant)'}")
    print("| task shape, order | local ms/task | Ray per step: ms/task (Ray tasks/task) "
          "| Ray batched: ms/task (Ray tasks/task) |")
    print("|---|---|---|---|")
    for shape in ("plain", "tools"):
        if shape == "tools" and server is not None:
            continue  # the test server answers text only: no tool call to make
        for parallel in (False, True):
            local, _ = _time(args.tasks, None, shape, parallel, server, args.runs)
            alone, alone_sent = _time(args.tasks, per_step, shape, parallel, server, args.runs)
            chain, chain_sent = _time(args.tasks, batched, shape, parallel, server, args.runs)
            name = f"{shape}, {'parallel' if parallel else 'sequential'}"
            print(f"| {name} | {local * 1000:.2f} | {alone * 1000:.2f} ({alone_sent:g}) "
                  f"| {chain * 1000:.2f} ({chain_sent:g}) |")
    if server is not None:
        server.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
