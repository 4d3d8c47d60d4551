"""Driver CPU to pickle each node of a Ray run (not a test; no cluster needed).

On Ray every node is pickled at kickoff (the check that it can travel) and again in each
step's payload, by ``StepPickler`` (cloudpickle with crewgraph's swaps: models, limiters,
tools, memory, locks, shared context). Its ``reducer_override`` runs for every object a
payload holds, so what it costs per object is paid ~40 times a node. This compiles a crew
of N one-tool tasks (the bench_ray_payload ``one-tool`` shape: an agent with a model and a
tool, the crew's tool cache on) and times ``StepPickler.dumps`` of every node, best of
``--repeat`` rounds.

Run: ``cd /tmp && PYTHONPATH=<tree> <tree>/.venv/bin/python <tree>/scripts/bench_step_pickler.py
[--tasks 50] [--repeat 7]``
"""

from __future__ import annotations

import argparse
import time
from typing import Any


def _look_up(word: str) -> str:
    """Look a word up."""
    return f"{word}: " + "a meaning " * 10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    from crewgraph import Agent, Crew, Task
    from crewgraph.distributed._pickling import StepPickler
    from crewgraph.testing import FakeLLM
    from crewgraph.tools import tool

    agent = Agent(role="Worker", goal="answer", backstory="fast", llm=FakeLLM(default="ok"),
                  tools=[tool("look_up")(_look_up)], max_retry_limit=0)
    crew = Crew(agents=[agent], cache=True, tasks=[
        Task(name=f"t{i}", description=f"task {i}", expected_output="x", agent=agent, context=[])
        for i in range(args.tasks)])
    nodes = [data["node"] for _, data in crew.compile().digraph.nodes(data=True)]

    def stand_in(obj: Any) -> Any:  # what the session swaps a hosted model or a limiter for
        return (str, (type(obj).__name__,))

    pickler = StepPickler(stand_in, stand_in, None)
    calls = [0]
    swap = pickler.swap

    def counting(obj: Any) -> Any:
        calls[0] += 1
        return swap(obj)

    pickler.swap = counting  # type: ignore[method-assign]
    size = sum(len(pickler.dumps(node)) for node in nodes)
    pickler.swap = swap  # type: ignore[method-assign]
    best = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        for node in nodes:
            pickler.dumps(node)
        best = min(best, (time.perf_counter() - start) / len(nodes))
    print(f"{len(nodes)} nodes, {size / len(nodes) / 1024:.1f} KB and {calls[0] / len(nodes):.1f} "
          f"swaps a node; {best * 1e6:.1f} us a node (best of {args.repeat})")


if __name__ == "__main__":
    main()
