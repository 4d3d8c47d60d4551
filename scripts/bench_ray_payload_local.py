"""Size of the run slice a Ray step ships, on a local run (not a test): before and after issue 28/5.

Runs a sequential crew of N one-turn tasks locally and, at every N/20th agent step (and the
last), pickles what a Ray step would carry of the run, without starting Ray:

- *old*: what ``RaySession._payload`` shipped up to session 8, ``dict(ctx.results)`` (every
  output so far) and the run state's extras (with the default context's cached text), with
  plain ``cloudpickle``;
- *new*: what it ships now: the upstream, results and extras ``RaySession._reads`` picks from
  ``Node.reads`` and the step's context ids (``context_nodes``), pickled with the session's
  ``StepPickler`` (a shared default context travels as (host, pool, length)); and, apart,
  the bytes appended to the host actor's shared texts (each earlier output's text, once).

Run: ``cd /tmp && PYTHONPATH=<tree> <tree>/.venv/bin/python <tree>/scripts/bench_ray_payload_local.py
<default|empty> <N>``
"""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import Any

import cloudpickle

from crewgraph import Agent, Crew, Task
from crewgraph.distributed._context_share import ContextShares
from crewgraph.distributed._pickling import StepPickler
from crewgraph.distributed._session import _DRIVER_EXTRAS, RaySession
from crewgraph.nodes.agent_step import AgentStepNode
from crewgraph.testing import FakeLLM


class _Host:
    """Stands in for the host actor: counts the bytes appended to the shared texts."""

    def __init__(self) -> None:
        self.bytes = 0
        self.extend_context = self

    def remote(self, key: str, start: int, items: list[Any]) -> None:
        self.bytes += len(cloudpickle.dumps(items))


def main() -> None:
    shape, n = sys.argv[1], int(sys.argv[2])
    every = max(1, n // 20)
    samples: list[tuple[int, int, int, int, int]] = []
    original = AgentStepNode.run
    count = [0]
    host = _Host()
    session: Any = SimpleNamespace(_shares=ContextShares("bench"), _host_actor=lambda: host, _host_name="host")
    pickler = StepPickler(lambda obj: NotImplemented, lambda obj: NotImplemented,
                          lambda prefix: RaySession._share_prefix(session, prefix))

    async def run(self: Any, ctx: Any) -> Any:
        k = count[0]
        count[0] += 1
        before = host.bytes
        upstream, results, _ = RaySession._reads(session, self, ctx, ())  # type: ignore[arg-type]
        appended = host.bytes - before
        if k % every == 0 or k == n - 1:
            extras = {key: v for key, v in ctx.state.extras.items() if key != "crewgraph.flow"}
            kept = {key: v for key, v in ctx.state.extras.items() if key not in _DRIVER_EXTRAS}
            new = len(pickler.dumps((upstream, results, kept, self.context_nodes)))
            samples.append((k, len(cloudpickle.dumps(dict(ctx.results))), len(cloudpickle.dumps(extras)),
                            new, appended))
        return await original(self, ctx)

    AgentStepNode.run = run  # type: ignore[method-assign]
    agent = Agent(role="Worker", goal="answer", backstory="fast", llm=FakeLLM(default="ok " * 30),
                  respect_context_window=False)
    ctx: dict[str, Any] = {} if shape == "default" else {"context": []}
    Crew(agents=[agent], tasks=[Task(name=f"t{i}", description=f"task {i}", expected_output="x", agent=agent, **ctx)
                                for i in range(n)]).kickoff()

    def mean(i: int) -> float:
        return sum(s[i] for s in samples) / len(samples)

    last = samples[-1]
    print("| context | N | old: KB per task (mean) | old: results / extras | old: KB at the last task "
          "| old: MB per crew | new: KB per task (mean) | new: KB at the last task | new: MB per crew "
          "| host appends, MB per crew |")
    print(f"| {shape} | {n} | {(mean(1) + mean(2)) / 1024:.1f} | {mean(1) / 1024:.1f} / {mean(2) / 1024:.1f} "
          f"| {(last[1] + last[2]) / 1024:.1f} | {(mean(1) + mean(2)) * n / 2**20:.1f} "
          f"| {mean(3) / 1024:.2f} | {last[3] / 1024:.2f} | {mean(3) * n / 2**20:.2f} | {host.bytes / 2**20:.2f} |")


if __name__ == "__main__":
    main()
