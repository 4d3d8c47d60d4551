"""Dispatch overhead per node on Ray vs local (not a test).

A crew of N one-turn tasks with an instant FakeLLM, run with the default local
executor and with ``RayExecutor`` on a local Ray (started here, 2 CPUs), in
sequential order (one step at a time: each node pays the full round trip) and
with ``Process.parallel`` (independent tasks: steps overlap on the workers).
The per-node figure is wall time / executed nodes (agent steps and the
bookkeeping around them). A FakeLLM is hosted in one actor on Ray, so its
calls add one more round trip per turn; ``--server`` uses crewgraph's local
OpenAI-compatible server and a real ``LLM`` instead (rebuilt on each worker).

Run: PYTHONPATH=. .venv/bin/python scripts/bench_ray_dispatch.py [--tasks 50] [--server]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any


def _crew(n: int, llm: Any, parallel: bool) -> Any:
    from crewgraph import Agent, Crew, Process, Task

    agent = Agent(role="Worker", goal="answer", backstory="fast", llm=llm, max_retry_limit=0)
    tasks = [Task(name=f"t{i}", description=f"task {i}", expected_output="x", agent=agent,
                  context=[] if parallel else None) for i in range(n)]
    return Crew(agents=[agent], tasks=tasks, process=Process.parallel if parallel else Process.sequential)


def _model(server: Any) -> Any:
    if server is not None:
        from crewgraph import LLM

        return LLM(model="crewgraph-test", base_url=server.base_url, api_key="x")
    from crewgraph.testing import FakeLLM

    return FakeLLM(default="ok")


def _time(n: int, executor: Any, parallel: bool, server: Any, runs: int) -> tuple[float, int]:
    walls: list[float] = []
    nodes = 0
    for _ in range(runs):
        crew = _crew(n, _model(server), parallel)
        start = time.perf_counter()
        out = crew.kickoff(executor=executor)
        walls.append(time.perf_counter() - start)
        nodes = sum(1 for _, d in out.graph.graph.nodes(data=True) if d["kind"] != "llm")
    return statistics.median(walls), nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=50)
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
    ray_executor = RayExecutor(num_cpus_per_node=0.5)
    _time(8, ray_executor, True, server, 2)  # warm the workers: imports happen once per worker
    print(f"{args.tasks} tasks, model: {'LLM over the local server' if server else 'FakeLLM (instant)'}")
    print("| order | local ms/node | Ray ms/node | Ray - local |")
    print("|---|---|---|---|")
    for parallel in (False, True):
        local, nodes = _time(args.tasks, None, parallel, server, args.runs)
        remote, _ = _time(args.tasks, ray_executor, parallel, server, args.runs)
        lo, re_ = local * 1000 / nodes, remote * 1000 / nodes
        name = "parallel" if parallel else "sequential"
        print(f"| {name} ({nodes} nodes) | {lo:.2f} | {re_:.2f} | {re_ - lo:+.2f} |")
    if server is not None:
        server.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
