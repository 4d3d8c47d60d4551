"""How often a six-task crew survives a server that fails a share of its requests (429/500/503).

For each failure rate and retry budget, runs the crew against the project's test server with
``Faults(rate, seed)`` for ``--runs`` seeds and prints the share of runs that finished, the
requests they made and the attempts a call needed at worst. Backoff is shrunk to milliseconds
(the budget is the number of attempts, not the waiting).

    python scripts/bench_fault_budget.py --runs 40
"""

from __future__ import annotations

import argparse
import logging

from crewgraph import LLM, Agent, Crew, Task
from crewgraph.errors import LLMError
from crewgraph.testing import Faults, OpenAICompatServer

ANSWERS = [f"answer {i}" for i in range(1, 7)]


def one_run(rate: float, seed: int, max_retries: int) -> tuple[bool, int]:
    faults = Faults(rate=rate, seed=seed)
    with OpenAICompatServer(ANSWERS, faults=faults) as server:
        llm = LLM(model="m", base_url=server.base_url, api_key="k", max_retries=max_retries,
                  retry_initial_delay=0.0002, retry_max_delay=0.0005, retry_after_max=0.0005)
        agent = Agent(role="Worker", goal="Work", backstory="Steady", llm=llm, max_retry_limit=0)
        tasks = [Task(description=f"Do step {i}", expected_output="an answer", agent=agent) for i in range(6)]
        try:
            out = Crew(agents=[agent], tasks=tasks).kickoff()
        except LLMError:
            return False, len(server.chat_requests)
        return [t.raw for t in out.tasks_output] == ANSWERS, len(server.chat_requests)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    print("| failure rate | max_retries | runs finished | requests per run (mean) | expected (1-p^n)^6 |")
    print("|---|---|---|---|---|")
    for rate in (0.5, 0.7, 0.9):
        for retries in (4, 16):
            results = [one_run(rate, seed, retries) for seed in range(args.runs)]
            ok = sum(r[0] for r in results)
            mean = sum(r[1] for r in results) / len(results)
            expected = (1 - rate ** (retries + 1)) ** 6
            print(f"| {rate:.0%} | {retries} | {ok}/{args.runs} | {mean:.1f} | {expected:.1%} |")


if __name__ == "__main__":
    main()
