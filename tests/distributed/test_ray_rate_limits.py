"""Rate limits hold across the cluster: one window per limit, however many workers draw on it."""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from typing import Any, ClassVar

from crewgraph.distributed import RayExecutor
from crewgraph.graph.context import NodeContext
from crewgraph.graph.execution_graph import ExecutionGraph
from crewgraph.graph.node import Node, NodeResult
from crewgraph.graph.run_state import RunState
from crewgraph.llm.rate_limit import RPMLimiter
from crewgraph.runtime import Scheduler


@dataclass(frozen=True, kw_only=True)
class Request(Node):
    """Takes a slot of the run's ``crew`` limiter like a model call does; says when and where.

    ``wait=False`` only tries (never waits), so a count of successes shows how many slots
    the workers shared."""

    kind: ClassVar[str] = "request"
    wait: bool = True

    async def run(self, ctx: NodeContext) -> NodeResult:
        limiter = ctx.state.limiters["crew"]
        before = time.time()
        got = await limiter.acquire() is not None if self.wait else limiter.try_acquire()
        after = time.time()
        if not self.wait:
            # Hold the worker a moment: instant steps let Ray reuse one idle worker for all seven
            # on a quiet machine, and the test is about several workers drawing on one window.
            await asyncio.sleep(0.5)
        return NodeResult(output=(before, after, got, os.getpid()))


def _run(n: int, limiter: RPMLimiter, executor: Any, *, wait: bool) -> list[Any]:
    graph = ExecutionGraph(name="requests")
    for i in range(n):
        graph.add_node(Request(id=f"r{i}", wait=wait))
    state = RunState(limiters={"crew": limiter})
    return list(asyncio.run(Scheduler(graph, state=state, executor=executor).run()).outputs.values())


def test_workers_share_one_window_of_a_runs_limit(ray_cluster: Any) -> None:
    outputs = _run(7, RPMLimiter(3, period=60.0), RayExecutor(num_cpus_per_node=0.25), wait=False)
    pids = {pid for *_, pid in outputs}
    assert len(pids) > 1 and os.getpid() not in pids  # several worker processes asked
    assert sum(got for _, _, got, _ in outputs) == 3  # seven workers, one window of three


def test_waiting_workers_are_spaced_by_the_shared_window(ray_cluster: Any) -> None:
    period = 1.0
    outputs = _run(5, RPMLimiter(2, period=period), RayExecutor(num_cpus_per_node=0.25), wait=True)
    first_asked = min(before for before, *_ in outputs)
    last_granted = max(after for _, after, *_ in outputs)
    assert last_granted - first_asked >= 2 * period - 0.05  # 5 requests at 2 per second: 2 more windows


def test_a_model_endpoints_limit_is_shared_by_every_worker(ray_cluster: Any) -> None:
    import ray

    @ray.remote(num_cpus=0.25)
    def take(key: str) -> tuple[bool, int]:
        from crewgraph.distributed._limits import install_endpoint_limits
        from crewgraph.llm.rate_limit import shared_limiter

        install_endpoint_limits()
        return shared_limiter(key, 2).try_acquire(), os.getpid()

    key = f"model@http://127.0.0.1:1/v1#{time.time()}"
    results = ray.get([take.remote(key) for _ in range(5)], timeout=60)
    assert sum(ok for ok, _ in results) == 2  # five workers, one window of two
