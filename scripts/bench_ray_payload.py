"""Bytes a Ray-run crew ships to its workers per task (not a test).

Issue 28, item 5 asks what one task costs on Ray. Besides the round trip, each task's
Ray task carries a pickle of its chain and of the slice of the run it reads
(``RaySession._payload``: the run's outputs so far, the run state's extras, ...). This
runs sequential crews of N one-turn tasks on a local Ray (started here, 2 CPUs) with
``RayExecutor()`` and records the size of every step / chain payload the driver pickles
(``dumps_checked`` wrapped), with the part that is ``results`` (every output so far) and
``extras`` pickled alone beside it. Until session 8 ``results`` was every output so far and
``extras`` held the default context's cached text; since session 9 (``Node.reads``) a step
carries only what its node reads, and a default context's texts go to the host actor once
(counted apart: "host appends", the bytes of each append's items, pickled). "driver CPU" is
this process's user+sys time for the kickoff (``getrusage``: pickling and Ray's client work).

- ``default``: CrewAI's default context (every earlier output feeds the next task);
- ``empty``: ``context=[]``;
- ``one-tool``: ``context=[]``, each task calls one tool once (its own argument), with the
  crew's tool cache on (``Crew(cache=True)``: each call adds an entry to the run's cache).

The model is a FakeLLM hosted in one actor. "KB back" counts the replies the driver
unpickles (``session.loads`` wrapped: each step's result, its events and model-call records,
its new tool-cache entries); "last task" is the mean of the last 10 tasks' replies.

Run: ``cd /tmp && PYTHONPATH=<tree> <tree>/.venv/bin/python <tree>/scripts/bench_ray_payload.py
[--sizes 200,1000] [--shapes default,empty]``
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from typing import Any


def _look_up(word: str) -> str:
    """Look a word up."""
    return f"{word}: " + "a meaning " * 10


def _crew(n: int, shape: str) -> Any:
    from crewgraph import Agent, Crew, Task
    from crewgraph.testing import FakeLLM, FakeRequest, FakeToolCall
    from crewgraph.tools import tool

    def reply(request: FakeRequest) -> Any:
        if shape == "one-tool" and request.messages[-1].get("role") != "tool":
            return FakeToolCall("look_up", {"word": request.prompt.rsplit("task ", 1)[-1].split()[0]})
        return "ok " * 30

    tools = [tool("look_up")(_look_up)] if shape == "one-tool" else []
    agent = Agent(role="Worker", goal="answer", backstory="fast", llm=FakeLLM(default=reply), tools=tools,
                  max_retry_limit=0, respect_context_window=False)
    ctx: dict[str, Any] = {} if shape == "default" else {"context": []}
    tasks = [Task(name=f"t{i}", description=f"task {i} of the run", expected_output="x", agent=agent, **ctx)
             for i in range(n)]
    return Crew(agents=[agent], tasks=tasks, cache=shape == "one-tool")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="200,1000")
    parser.add_argument("--shapes", default="default,empty")
    args = parser.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # "this node" is 127.0.0.1
    import ray

    import crewgraph.distributed._session as session
    from crewgraph.distributed import RayExecutor
    from crewgraph.distributed._chain_worker import ChainPayload
    from crewgraph.distributed._worker import StepPayload

    sent: list[tuple[int, int, int]] = []  # (payload bytes, results bytes, extras bytes)
    appended = [0]
    original = session.dumps_checked
    shares = getattr(session, "ContextShares", None)  # absent before session 9
    if shares is not None:
        from ray import cloudpickle

        extend = shares.extend

        def extending(self: Any, prefix: Any, output_of: Any, host: Any) -> Any:
            start = {p.key: p.sent for p in self._pools.values()}
            pool = extend(self, prefix, output_of, host)
            if pool is not None and pool.sent > start.get(pool.key, 0):
                from crewgraph.graph.reads import OutputText

                items = [(prefix[i], OutputText.of(output_of(prefix[i]), prefix[i]))
                         for i in range(start.get(pool.key, 0), pool.sent)]
                appended[0] += len(cloudpickle.dumps(items))
            return pool

        shares.extend = extending

    def counting(pickler: Any, obj: Any, what: str) -> bytes:
        data: bytes = original(pickler, obj, what)
        step = obj.first if isinstance(obj, ChainPayload) else obj
        if isinstance(step, StepPayload):
            sent.append((len(data), len(pickler.dumps(step.results)), len(pickler.dumps(step.extras))))
        return data

    session.dumps_checked = counting
    back: list[int] = []
    original_loads = session.loads

    def unpickling(data: bytes) -> Any:
        reply = original_loads(data)
        if hasattr(reply, "events"):
            back.append(len(data))
        return reply

    session.loads = unpickling
    t = time.perf_counter()
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             _node_ip_address="127.0.0.1")
    print(f"ray.init(num_cpus=2): {time.perf_counter() - t:.1f} s; load average {os.getloadavg()[0]:.1f}")
    executor = RayExecutor(num_cpus_per_node=0.5)
    _crew(4, "default").kickoff(executor=executor)  # warm the workers
    print("| shape | N | Ray tasks/task | KB sent per task (mean) | of which results / extras "
          "| KB sent by the last task | MB sent by the crew | host appends, MB | KB back per task (mean) "
          "| KB back, last task | driver CPU s | wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for shape in args.shapes.split(","):
        for n in (int(s) for s in args.sizes.split(",")):
            sent.clear()
            back.clear()
            appended[0] = 0
            before = executor.dispatches
            start = time.perf_counter()
            used = resource.getrusage(resource.RUSAGE_SELF)
            out = _crew(n, shape).kickoff(executor=executor)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_SELF)
            cpu = after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime
            assert len(out.tasks_output) == n
            total = sum(s[0] for s in sent)
            res = sum(s[1] for s in sent) / len(sent)
            ext = sum(s[2] for s in sent) / len(sent)
            print(f"| {shape} | {n} | {(executor.dispatches - before) / n:g} | {total / n / 1024:.1f} "
                  f"| {res / 1024:.2f} / {ext / 1024:.2f} | {sent[-1][0] / 1024:.1f} | {total / 2**20:.2f} "
                  f"| {appended[0] / 2**20:.2f} | {sum(back) / n / 1024:.1f} "
                  f"| {sum(back[-10:]) / len(back[-10:]) / 1024:.1f} | {cpu:.1f} | {wall:.1f} |", flush=True)
    ray.shutdown()


if __name__ == "__main__":
    main()
