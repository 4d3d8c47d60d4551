"""A parallel crew against a slow one-slot local server: the old timeout policy against the new.

The server is the project's test server configured like a small model on a laptop CPU
(``SlowModel``: one generation slot, a fixed time per token, a non-streamed generation runs to
its end even when the client has hung up, a streamed one stops when the client closes it).
Four ``Process.parallel`` tasks each need one answer of ``--tokens`` tokens.

- before: a per-attempt timeout, up to 4 retries of a timed-out request, no concurrency limit,
  no streaming (crewgraph's policy before issue 17);
- after: the defaults now: ``idle_timeout`` (streamed, judged by the pause between tokens),
  one retry after a timeout, and a concurrency limit learned from the first timeouts.

Prints, for each: whether the crew finished, its wall time, the requests sent, the generations
the server ran for clients that had gone, and the slot time they wasted.

    python scripts/bench_slow_server.py --seconds-per-token 0.01 --tokens 100
"""

from __future__ import annotations

import argparse
import logging
import time

from crewgraph import LLM, Agent, Crew, Process, Task
from crewgraph.errors import CrewGraphError
from crewgraph.testing import OpenAICompatServer, SlowModel


def run(policy: str, seconds_per_token: float, tokens: int) -> str:
    answer = " ".join(["word"] * tokens)[: tokens * 4]
    generation = seconds_per_token * tokens
    slow = SlowModel(seconds_per_token=seconds_per_token, slots=1)
    with OpenAICompatServer(default=answer, slow_model=slow) as server:
        common = {"model": "m", "base_url": server.base_url, "api_key": "k",
                  "retry_initial_delay": 0.05, "retry_max_delay": 0.1}
        if policy == "before":
            llm = LLM(**common, timeout=2.5 * generation, max_retries=4, timeout_retries=4, max_concurrency=1000)
        else:
            llm = LLM(**common, timeout=60 * generation, idle_timeout=1.5 * generation)
        agents = [Agent(role=f"Analyst {i}", goal="Analyse", backstory="Careful", llm=llm, max_retry_limit=0)
                  for i in range(4)]
        tasks = [Task(description=f"Analyse part {i}", expected_output="a finding", agent=a)
                 for i, a in enumerate(agents)]
        start = time.monotonic()
        try:
            Crew(agents=agents, tasks=tasks, process=Process.parallel).kickoff()
            result = "finished"
        except CrewGraphError as exc:
            result = f"failed ({type(exc).__name__})"
        elapsed = time.monotonic() - start
        time.sleep(max(0.0, slow.busy_seconds - elapsed) + 0.2)  # let abandoned generations end
        wasted = [g for g in slow.generations if g.abandoned]
        return (f"| {policy} | {result} | {elapsed:.1f} s | {len(server.chat_requests)} | {len(wasted)} | "
                f"{sum(g.busy_seconds for g in wasted):.1f} s |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds-per-token", type=float, default=0.01)
    parser.add_argument("--tokens", type=int, default=100)
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    print(f"one generation: {args.seconds_per_token * args.tokens:.1f} s; 4 parallel tasks, 1 slot")
    print("| policy | crew | wall time | requests | abandoned generations | slot time wasted |")
    print("|---|---|---|---|---|---|")
    for policy in ("before", "after"):
        print(run(policy, args.seconds_per_token, args.tokens))


if __name__ == "__main__":
    main()
