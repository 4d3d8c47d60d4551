"""Benchmark: N one-task crews with a 100 ms model through kickoff_for_each, local vs Ray.

    PYTHONPATH=. python scripts/bench_ray_batch.py                       # 100 and 1,000 inputs
    PYTHONPATH=. python scripts/bench_ray_batch.py --sizes 100,1000,10000 --delay 0.1
    PYTHONPATH=. python scripts/bench_ray_batch.py --sizes 10000 --delay 0.02 --only ray

The model is ``SleepLLM``: an LLM client that waits ``--delay`` seconds (asyncio
sleep, as a hosted model's network wait) and answers. Every batch is
checkpointed (``Crew(checkpoint=...)`` in a fresh SQLite file: the batch
record plus one checkpointed run per input), as a resumable batch would be.

- local: ``kickoff_for_each(inputs, max_concurrency=C)`` on this machine;
- ray: ``kickoff_for_each(inputs, executor=RayExecutor(...), max_concurrency=C)`` on a
  two-node ``ray.cluster_utils.Cluster`` (head + one worker node, ``--cpus`` CPUs each):
  a pool of batch worker actors (one CPU each, up to 16 inputs at once each) spread over
  both nodes. The wall time includes starting that pool (one process per actor); the
  cluster start is printed apart.

Prints wall time and throughput per size and mode, as a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.llm.base import BaseLLM
from crewgraph.llm.types import LLMResponse
from crewgraph.outputs import UsageMetrics


class SleepLLM(BaseLLM):
    """A model that takes ``delay`` seconds per call and always answers the same (picklable)."""

    def __init__(self, delay: float) -> None:
        super().__init__(model="sleep")
        self.delay = delay

    async def acall(self, messages: list[dict[str, Any]], *, tools: Any = None, response_model: Any = None,
                    **kwargs: Any) -> LLMResponse:
        await asyncio.sleep(self.delay)
        return LLMResponse(content="done", usage=UsageMetrics(prompt_tokens=20, completion_tokens=2,
                                                               total_tokens=22, successful_requests=1))


def build_crew(delay: float, db: Path) -> Crew:
    agent = Agent(role="Writer", goal="Write", backstory="Terse", llm=SleepLLM(delay))
    task = Task(description="Write about {topic}.", expected_output="one word", agent=agent)
    return Crew(name="bench", agents=[agent], tasks=[task], checkpoint=CheckpointConfig(path=db))


def run_once(n: int, delay: float, concurrency: int, executor: Any, folder: Path) -> float:
    db = folder / f"bench-{n}-{'ray' if executor else 'local'}-{time.monotonic_ns()}.db"
    crew = build_crew(delay, db)
    inputs = [{"topic": f"t{i}"} for i in range(n)]
    start = time.perf_counter()
    outputs = crew.kickoff_for_each(inputs, executor=executor, max_concurrency=concurrency)
    seconds = time.perf_counter() - start
    assert len(outputs) == n and all(o.raw == "done" for o in outputs)
    return seconds


def start_cluster(cpus: int) -> tuple[Any, Any]:
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, connect=False,
                      head_node_args={"num_cpus": cpus, "node_ip_address": "127.0.0.1", "include_dashboard": False})
    cluster.add_node(num_cpus=cpus, node_ip_address="127.0.0.1")
    ray.init(address=cluster.address, log_to_driver=False, _node_ip_address="127.0.0.1")
    return ray, cluster


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100,1000", help="comma-separated input counts")
    parser.add_argument("--delay", type=float, default=0.1, help="seconds per model call")
    parser.add_argument("--concurrency", type=int, default=64, help="runs in flight (both modes)")
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of each of the two Ray nodes")
    parser.add_argument("--worker-cpus", type=float, default=1.0, help="CPUs each Ray batch worker asks for")
    parser.add_argument("--only", choices=("local", "ray"), default=None)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    rows: list[tuple[str, int, float]] = []
    with tempfile.TemporaryDirectory(prefix="bench-ray-batch-") as tmp:
        folder = Path(tmp)
        if args.only != "ray":
            for n in sizes:
                rows.append(("local", n, run_once(n, args.delay, args.concurrency, None, folder)))
                print(f"local {n}: {rows[-1][2]:.2f}s", file=sys.stderr)
        if args.only != "local":
            from crewgraph.distributed import RayExecutor

            t0 = time.perf_counter()
            ray, cluster = start_cluster(args.cpus)
            print(f"cluster up in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
            try:
                executor = RayExecutor(num_cpus_per_node=args.worker_cpus)
                run_once(20, args.delay, args.concurrency, executor, folder)  # warm the worker pool
                for n in sizes:
                    rows.append(("ray (2 nodes)", n, run_once(n, args.delay, args.concurrency, executor, folder)))
                    print(f"ray {n}: {rows[-1][2]:.2f}s", file=sys.stderr)
            finally:
                ray.shutdown()
                cluster.shutdown()
    ideal = {n: n * args.delay / args.concurrency for n in sizes}
    print(f"\n{args.delay * 1000:.0f} ms model, {args.concurrency} runs in flight, checkpointed; "
          f"ideal = n x delay / concurrency\n")
    print("| mode | inputs | wall time | throughput | ideal |")
    print("| :-- | --: | --: | --: | --: |")
    for mode, n, seconds in rows:
        print(f"| {mode} | {n:,} | {seconds:.2f} s | {n / seconds:.0f} runs/s | {ideal[n]:.2f} s |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
