"""Engine benchmarks (not tests): import cost, first kickoff, per-node overhead, parallelism.

Run: .venv/bin/python scripts/bench_engine.py
Figures go to docs/benchmarks.md by hand, with the machine they came from.
"""

from __future__ import annotations

import asyncio
import compileall
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from typing import Any

IMPORT_CREWGRAPH = "from crewgraph import Agent, Task, Crew, Process, LLM"
IMPORT_PYDANTIC = "from pydantic import BaseModel"


def _cold(code: str, runs: int = 9) -> float:
    """Median wall time of ``code`` in a fresh interpreter (interpreter start excluded)."""
    return _cold_both(code, runs)[0]


def _cold_both(code: str, runs: int = 9) -> tuple[float, float]:
    """Median (wall, CPU) seconds of ``code`` in fresh interpreters; CPU time is the steadier
    figure on a shared machine."""
    timed = (
        "import time\nt = time.perf_counter(); c = time.process_time()\n"
        f"{code}\nprint(time.perf_counter() - t, time.process_time() - c)"
    )
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = _run_timed(timed)
        walls.append(wall)
        cpus.append(cpu)
    return statistics.median(walls), statistics.median(cpus)


def _run_timed(timed: str) -> tuple[float, float]:
    # Bytecode as an installed wheel has it: without it every crewgraph module is compiled from
    # source on each run (PYTHONDONTWRITEBYTECODE, a fresh checkout) while pydantic's is not.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run([sys.executable, "-c", timed], capture_output=True, text=True, check=True, env=env).stdout
    wall, cpu = (float(x) for x in out.split())
    return wall, cpu


def _import_ratio(runs: int = 21) -> tuple[float, float, float, float]:
    """CPU of ``IMPORT_PYDANTIC`` and ``IMPORT_CREWGRAPH`` in fresh interpreters, alternated so
    that load on a shared machine weighs on both alike: (median pydantic, median crewgraph,
    ratio of medians, ratio of minima)."""
    import crewgraph

    compileall.compile_dir(os.path.dirname(crewgraph.__file__), quiet=1)
    timed = "import time\nt = time.perf_counter(); c = time.process_time()\n{}\nprint(time.perf_counter() - t, time.process_time() - c)"
    pyd, cg = [], []
    for _ in range(runs):
        pyd.append(_run_timed(timed.format(IMPORT_PYDANTIC))[1])
        cg.append(_run_timed(timed.format(IMPORT_CREWGRAPH))[1])
    return statistics.median(pyd), statistics.median(cg), statistics.median(cg) / statistics.median(pyd), min(cg) / min(pyd)


FIRST_KICKOFF = """
from crewgraph import Agent, Task, Crew
from crewgraph.testing import FakeLLM
a = Agent(role="R", goal="g", llm=FakeLLM(responses=["done"]))
Crew(agents=[a], tasks=[Task(description="d", expected_output="e", agent=a)]).kickoff()
"""


def _crew(n: int, latency: float, parallel: bool) -> Any:
    from crewgraph import Agent, Crew, Process, Task
    from crewgraph.testing import FakeLLM

    llm = FakeLLM(default="done", latency=latency)
    a = Agent(role="R", goal="g", llm=llm)
    tasks = [Task(description=f"task {i}", expected_output="e", agent=a, context=[]) for i in range(n)]
    # The crew's defaults (max_concurrency=64): the figures are what a user gets untuned.
    return Crew(agents=[a], tasks=tasks, process=Process.parallel if parallel else Process.sequential)


def _time_kickoff(crew: Any, repeat: int = 5) -> float:
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        asyncio.run(crew.kickoff_async())
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def _instructions(code: str) -> int | None:
    """Instructions ``python -c code`` executes, counted by valgrind (None without valgrind).

    CPU time on a shared 2-vCPU machine moves by 10-20% with the neighbours' load; the
    instruction count does not, so the import goal is judged on it when valgrind is there."""
    if shutil.which("valgrind") is None:
        return None
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", code],
        capture_output=True, text=True, check=True, env=env,
    ).stderr
    found = re.search(r"Collected : (\d+)", out)
    return int(found.group(1)) if found else None


def _import_instructions() -> str:
    start = _instructions("pass")
    pyd = _instructions(IMPORT_PYDANTIC)
    cg = _instructions(IMPORT_CREWGRAPH)
    if start is None or pyd is None or cg is None:
        return "instructions: valgrind not installed"
    return (f"instructions above interpreter start: pydantic {(pyd - start) / 1e6:.0f} M, "
            f"crewgraph {(cg - start) / 1e6:.0f} M, ratio {(cg - start) / (pyd - start):.3f}x (goal <= 1.5x)")


def main() -> None:
    pyd_cpu, cg_cpu, ratio, min_ratio = _import_ratio()
    print(f"cold import CPU: pydantic {pyd_cpu * 1000:.1f} ms, crewgraph {cg_cpu * 1000:.1f} ms, "
          f"ratio {ratio:.2f}x (of the fastest runs: {min_ratio:.2f}x; goal <= 1.5x)")
    print(_import_instructions())
    first, first_cpu = _cold_both(FIRST_KICKOFF, runs=5)
    print(f"first kickoff of a one-task crew with FakeLLM, imports included: {first * 1000:.0f} ms "
          f"(CPU {first_cpu * 1000:.0f} ms; goal < 300 ms)")

    _time_kickoff(_crew(5, 0, False), repeat=1)  # warm imports
    for n in (50, 200):
        seq = _time_kickoff(_crew(n, 0, False))
        par = _time_kickoff(_crew(n, 0, True))
        print(f"instant LLM, {n} tasks: sequential {seq / n * 1000:.3f} ms/task, parallel {par / n * 1000:.3f} ms/task "
              "(goal < 1 ms per node)")
    one = _time_kickoff(_crew(1, 0.1, True))
    ten = _time_kickoff(_crew(10, 0.1, True))
    print(f"100 ms LLM: 1 task {one * 1000:.0f} ms, 10 independent tasks {ten * 1000:.0f} ms, "
          f"ratio {ten / one:.2f}x (goal < 1.5x)")
    hundred = _time_kickoff(_crew(100, 0.1, True))
    print(f"100 ms LLM: 100 independent tasks with the default max_concurrency {hundred * 1000:.0f} ms "
          "(goal < 150 ms)")


if __name__ == "__main__":
    main()
