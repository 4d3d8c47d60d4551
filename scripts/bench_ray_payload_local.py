"""Size of the run slice a Ray step would ship (results + extras), on a local run (not a test).

``RaySession._payload`` pickles, with each step, every output of the run so far and the run
state's extras. This runs a sequential crew of N one-turn tasks locally and, at every N/20th
agent step (and the last), pickles ``dict(ctx.results)`` and the extras with plain
``cloudpickle``: the bytes a Ray-run crew would send, without starting Ray.

Run: ``cd /tmp && PYTHONPATH=<tree> <tree>/.venv/bin/python <tree>/scripts/bench_ray_payload_local.py
<default|empty> <N>``
"""

from __future__ import annotations

import sys
from typing import Any

import cloudpickle

from crewgraph import Agent, Crew, Task
from crewgraph.nodes.agent_step import AgentStepNode
from crewgraph.testing import FakeLLM


def main() -> None:
    shape, n = sys.argv[1], int(sys.argv[2])
    every = max(1, n // 20)
    samples: list[tuple[int, int, int]] = []
    original = AgentStepNode.run
    count = [0]

    async def run(self: Any, ctx: Any) -> Any:
        k = count[0]
        count[0] += 1
        if k % every == 0 or k == n - 1:
            extras = {key: v for key, v in ctx.state.extras.items() if key != "crewgraph.flow"}
            samples.append((k, len(cloudpickle.dumps(dict(ctx.results))), len(cloudpickle.dumps(extras))))
        return await original(self, ctx)

    AgentStepNode.run = run  # type: ignore[method-assign]
    agent = Agent(role="Worker", goal="answer", backstory="fast", llm=FakeLLM(default="ok " * 30),
                  respect_context_window=False)
    ctx: dict[str, Any] = {} if shape == "default" else {"context": []}
    Crew(agents=[agent], tasks=[Task(name=f"t{i}", description=f"task {i}", expected_output="x", agent=agent, **ctx)
                                for i in range(n)]).kickoff()
    mean_r = sum(s[1] for s in samples) / len(samples)
    mean_e = sum(s[2] for s in samples) / len(samples)
    last = samples[-1]
    print("| context | N | KB per task (mean) | of which results / extras | KB at the last task | MB per crew |")
    print(f"| {shape} | {n} | {(mean_r + mean_e) / 1024:.1f} | {mean_r / 1024:.1f} / {mean_e / 1024:.1f} "
          f"| {(last[1] + last[2]) / 1024:.1f} | {(mean_r + mean_e) * n / 2**20:.1f} |")


if __name__ == "__main__":
    main()
