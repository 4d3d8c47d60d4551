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
    """Waits for the run's ``crew`` limiter like a model call does, then says when and where."""

    kind: ClassVar[str] = "request"

    async def run(self, ctx: NodeContext) -> NodeResult:
        await ctx.state.limiters["crew"].acquire()
        return NodeResult(output=(time.time(), os.getpid()))


def _run(n: int, limiter: RPMLimiter, executor: Any) -> dict[str, Any]:
    graph = ExecutionGraph(name="requests")
    for i in range(n):
        graph.add_node(Request(id=f"r{i}"))
    state = RunState(limiters={"crew": limiter})
    return asyncio.run(Scheduler(graph, state=state, executor=executor).run()).outputs


def test_a_runs_limit_is_one_window_for_every_worker(ray_cluster: Any) -> None:
    period, limit, n = 1.0, 3, 7
    outputs = _run(n, RPMLimiter(limit, period=period), RayExecutor(num_cpus_per_node=0.25))
    starts = sorted(t for t, _ in outputs.values())
    pids = {pid for _, pid in outputs.values()}
    assert len(pids) > 1 and os.getpid() not in pids  # several worker processes asked at once
    for i, first in enumerate(starts):
        in_window = [t for t in starts[i:] if t < first + period - 0.05]
        assert len(in_window) <= limit, starts
    assert starts[-1] - starts[0] >= 2 * period - 0.1  # 7 requests at 3 per second need 2 more windows


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
