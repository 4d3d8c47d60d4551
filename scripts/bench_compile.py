"""Compile benchmark (not a test): ``crew.compile()`` alone at 1,000 / 10,000 / 100,000 tasks.

Issue 28 asks for a linear compile (10,000 tasks under 250 ms, 100,000 under 2.5 s on the
reference machine). ``bench_growth.py`` reports compile time beside a kickoff; this times the
compile alone, so sizes past what a kickoff can afford are cheap to measure, and it can put
two checkouts side by side:

- each (tree, N) runs in a fresh interpreter (the crew is built, a 2-task crew is compiled as
  a warm-up, then the N-task crew's ``compile()`` is timed with ``time.process_time``);
- ``--trees a,b`` alternates the checkouts run by run (``PYTHONPATH=<tree>``, cwd ``/tmp`` so
  no checkout shadows another) and reports the median of ``--runs``;
- ``--instructions`` counts instructions with valgrind's callgrind instead (build + compile
  minus build alone, one run each): a figure the neighbours' load does not move.

The crew is one agent, ``context=[]`` tasks named ``task <i>`` (``--shape default``: the default
context; ``--shape real``: 300-character descriptions with a ``{topic}`` placeholder compiled with
kickoff inputs, one tool and a guardrail per task, closer to a crew people write).

Run: ``cd /tmp && /work/main/.venv/bin/python <tree>/scripts/bench_compile.py --trees <tree>[,<other>]
[--sizes 1000,10000,100000] [--runs 3] [--instructions]``
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from typing import Any

CASE = r"""
import json, sys, time
n, shape, do_compile = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "1"
from crewgraph import Agent, Crew, Task
from crewgraph.testing import FakeLLM

TEXT = ("Research the latest developments in {topic}, compare the three most cited approaches, "
        "list what each one costs to run and where it fails, and write a short report with sources. "
        "Keep it under 400 words, plain text, no tables; name every source with its year. ")

def build(k):
    tools = []
    if shape == "real":
        from crewgraph.tools import tool

        @tool("lookup")
        def lookup(q: str) -> str:
            "Look something up."
            return q

        tools = [lookup]
    a = Agent(role="Researcher", goal="Find out about {topic}", backstory="b", llm=FakeLLM(default="done"),
              tools=tools)
    ctx = {} if shape == "default" else {"context": []}
    if shape == "real":
        return Crew(agents=[a], tasks=[Task(description=f"Step {i}: {TEXT}", expected_output="A report on {topic}",
                                            agent=a, guardrail=lambda out: (True, out), **ctx) for i in range(k)])
    return Crew(agents=[a], tasks=[Task(description=f"task {i}", expected_output="e", agent=a, **ctx)
                                   for i in range(k)])

inputs = {"topic": "AI agents"} if shape == "real" else None
build(2).compile(inputs)
crew = build(n)
t = time.process_time()
if do_compile:
    plan = crew.compile(inputs)
print(json.dumps({"compile": time.process_time() - t}))
"""


def _env(tree: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = tree
    return env


def timed(tree: str, n: int, shape: str) -> float:
    out = subprocess.run([sys.executable, "-c", CASE, str(n), shape, "1"], capture_output=True, text=True,
                         cwd="/tmp", env=_env(tree), check=True).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return float(result["compile"])


def instructions(tree: str, n: int, shape: str, do_compile: bool) -> int:
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                           "-c", CASE, str(n), shape, "1" if do_compile else "0"],
                          capture_output=True, text=True, cwd="/tmp", env=_env(tree), check=True)
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from valgrind:\n{proc.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=3, help="fresh interpreters per (tree, N); median reported")
    parser.add_argument("--shape", choices=("empty", "default", "real"), default="empty")
    parser.add_argument("--instructions", action="store_true", help="count instructions with valgrind (slow)")
    args = parser.parse_args()
    trees = args.trees.split(",")
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if args.instructions:
        if shutil.which("valgrind") is None:
            raise SystemExit("valgrind is not installed")
        for tree in trees:  # bytecode written first: a fresh checkout would count compiling its modules
            timed(tree, 2, args.shape)
        for n in sizes:
            for tree in trees:
                diff = instructions(tree, n, args.shape, True) - instructions(tree, n, args.shape, False)
                print(f"{tree:<28} N={n:>7}  compile {diff / 1e6:9.1f} M instructions  {diff / n:9.0f} per task")
        return
    for n in sizes:
        times: dict[str, list[float]] = {t: [] for t in trees}
        for _ in range(args.runs):
            for tree in trees:  # alternated, so a change of load falls on every tree alike
                times[tree].append(timed(tree, n, args.shape))
        for tree in trees:
            med = statistics.median(times[tree])
            runs = " ".join(f"{s * 1000:.0f}" for s in times[tree])
            print(f"{tree:<28} N={n:>7}  median {med * 1000:8.0f} ms  {med / n * 1e6:6.1f} us/task  (runs: {runs})")


if __name__ == "__main__":
    main()
