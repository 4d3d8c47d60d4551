"""Growth benchmark (not a test): per-task cost of crews and flows as the work grows.

A framework whose cost per task rises with the number of tasks hides a super-linear
step somewhere (readiness checks, edge copies, reprs of results). This prints, for
N = 10, 100, 1,000 and 10,000, the CPU time per task of one kickoff (compile
included, then compile alone), and the peak RSS of the process, for:

- ``seq-empty``: a sequential crew whose tasks declare ``context=[]``;
- ``seq-default``: a sequential crew with CrewAI's default context (every earlier
  output feeds the next task);
- ``parallel``: ``Process.parallel``, independent tasks;
- ``async``: sequential, ``context=[]``, nine in ten tasks ``async_execution=True``
  (each tenth task waits for the nine before it);
- ``one-tool``: sequential, ``context=[]``, each task making one tool call;
- ``flow``: a chain of N async flow methods;
- ``fanout``: a flow whose start fans out to N async methods joined by one ``and_``;
- ``flow-sync``, ``fanout-sync``: the same two flows with plain ``def`` methods (what most
  CrewAI flows are), which run in worker threads.

Each (shape, N) runs in a fresh interpreter so peak RSS belongs to that case alone.
The model is an instant ``FakeLLM``: every figure is framework overhead.

``--instructions`` counts instructions with valgrind's callgrind instead, a figure the
neighbours' load does not move: one run per (shape, N), the whole process (imports, warm-up,
build, kickoff with its compile; no separate compile), and per task ``(I(N) - I(base)) / (N -
base)`` against a ``--base``-task run of the same shape (default 10), so what every run pays
once cancels out. ``PYTHONHASHSEED=0`` keeps the counts repeatable. Under callgrind a run is
~50x slower.

Run: ``.venv/bin/python scripts/bench_growth.py [--sizes 10,100,1000,10000] [--shapes ...]
[--instructions [--base 10]]``
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from typing import Any

SHAPES = (
    "seq-empty", "seq-default", "parallel", "async", "one-tool", "flow", "fanout", "flow-sync", "fanout-sync",
)

CASE = r"""
import asyncio, json, resource, sys, time
shape, n = sys.argv[1], int(sys.argv[2])
counting = len(sys.argv) > 3 and sys.argv[3] == "instructions"
from crewgraph import Agent, Crew, Process, Task
from crewgraph.testing import FakeLLM, FakeToolCall

def build():
    sync = shape.endswith("-sync")

    def method(name):
        if sync:
            def fn(self, *args):
                return 1
        else:
            async def fn(self, *args):
                return 1
        fn.__name__ = fn.__qualname__ = name
        return fn

    if shape.startswith("fanout"):
        from crewgraph.flow import Flow, and_, listen, start
        body = {"root": start()(method("root"))}
        leaves = []
        for i in range(n):
            body[f"m{i}"] = leaf = listen(body["root"])(method(f"m{i}"))
            leaves.append(leaf)
        body["end"] = listen(and_(*leaves))(method("end"))
        return type("FanOut", (Flow,), body)()
    if shape.startswith("flow"):
        from crewgraph.flow import Flow, listen, start
        prev = start()(method("m0"))
        body = {"m0": prev}
        for i in range(1, n):
            prev = listen(prev)(method(f"m{i}"))
            body[f"m{i}"] = prev
        return type("Chain", (Flow,), body)()
    if shape == "one-tool":
        from crewgraph.tools import tool

        @tool("lookup")
        def lookup(q: str) -> str:
            "Look something up."
            return "found " + q

        script = []
        for _ in range(n):
            script += [FakeToolCall("lookup", {"q": "x"}), "done"]
        llm = FakeLLM(responses=script)
        tools = [lookup]
    else:
        llm = FakeLLM(default="done")
        tools = []
    # respect_context_window=False: the default-context prompts outgrow FakeLLM's assumed
    # window past ~1,000 tasks, and trimming them would measure the trimming policy instead.
    a = Agent(role="R", goal="g", backstory="b", llm=llm, tools=tools, respect_context_window=False)
    ctx = {} if shape == "seq-default" else {"context": []}
    tasks = [Task(description=f"task {i}", expected_output="e", agent=a,
                  async_execution=shape == "async" and i % 10 != 9 and i != n - 1, **ctx) for i in range(n)]
    process = Process.parallel if shape == "parallel" else Process.sequential
    return Crew(agents=[a], tasks=tasks, process=process)

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

# warm-up: a small case of the same shape first, so lazy imports are not counted per task
n_real, n = n, 2
warm = build()
flows = ("flow", "fanout", "flow-sync", "fanout-sync")
asyncio.run(warm.kickoff_async()) if shape in flows else warm.kickoff()
n = n_real
target = build()
compile_s = None
if shape not in flows and not counting:
    t = cpu()
    target.compile()
    compile_s = cpu() - t
    target = build()  # a fresh crew: the kickoff below compiles for itself
t = cpu()
w = time.perf_counter()
if shape in flows:
    asyncio.run(target.kickoff_async())
else:
    out = target.kickoff()
    assert len(out.tasks_output) == n, len(out.tasks_output)
run_cpu, wall = cpu() - t, time.perf_counter() - w
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"cpu": run_cpu, "wall": wall, "compile": compile_s, "rss": peak_mb}))
"""


def run_case(shape: str, n: int, timeout: float) -> dict[str, Any] | None:
    try:
        proc = subprocess.run(
            [sys.executable, "-c", CASE, shape, str(n)], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return None
    if proc.returncode != 0:
        raise SystemExit(f"{shape} N={n} failed:\n{proc.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def count_instructions(shape: str, n: int, timeout: float) -> int | None:
    env = dict(os.environ, PYTHONHASHSEED="0")
    try:
        proc = subprocess.run(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", CASE,
             shape, str(n), "instructions"],
            capture_output=True, text=True, timeout=timeout, env=env,
        )
    except subprocess.TimeoutExpired:
        return None
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or found is None:
        raise SystemExit(f"{shape} N={n} failed under valgrind:\n{proc.stderr[-2000:]}")
    return int(found.group(1))


def instructions_table(shapes: list[str], sizes: list[int], base: int, timeout: float) -> None:
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} (does not move the counts)")
    print(f"{'shape':<12} {'N':>6} {'M instructions':>15} {'per task (vs N=' + str(base) + ')':>22}")
    for shape in shapes:
        run_case(shape, 2, timeout)  # bytecode written first, so no run counts compiling modules
        ref = count_instructions(shape, base, timeout)
        if ref is None:
            print(f"{shape:<12} {base:>6} {'timeout':>15}")
            continue
        print(f"{shape:<12} {base:>6} {ref / 1e6:>15.1f} {'-':>22}", flush=True)
        for n in sizes:
            count = count_instructions(shape, n, timeout)
            if count is None:
                print(f"{shape:<12} {n:>6} {'timeout':>15}", flush=True)
                continue
            print(f"{shape:<12} {n:>6} {count / 1e6:>15.1f} {(count - ref) / (n - base):>22.0f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000,10000")
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per case")
    parser.add_argument("--instructions", action="store_true", help="count instructions with valgrind (slow)")
    parser.add_argument("--base", type=int, default=10, help="--instructions: the baseline N subtracted")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.instructions:
        instructions_table(args.shapes.split(","), [n for n in sizes if n != args.base], args.base,
                           args.timeout)
        return
    print(f"{'shape':<12} {'N':>6} {'ms CPU/task':>12} {'compile ms':>11} {'peak RSS MB':>12}")
    for shape in args.shapes.split(","):
        for n in sizes:
            r = run_case(shape, n, args.timeout)
            if r is None:
                print(f"{shape:<12} {n:>6} {'timeout':>12}")
                continue
            comp = "-" if r["compile"] is None else f"{r['compile'] * 1000:.0f}"
            print(f"{shape:<12} {n:>6} {r['cpu'] / n * 1000:>12.3f} {comp:>11} {r['rss']:>12.0f}")


if __name__ == "__main__":
    main()
