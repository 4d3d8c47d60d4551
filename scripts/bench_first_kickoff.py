"""First kickoff (not a test): a one-task FakeLLM crew in fresh interpreters, split into the import
and the kickoff after it, and which modules the kickoff itself imports (the usual cost).

Run: PYTHONPATH=. .venv/bin/python scripts/bench_first_kickoff.py [--runs N]
Figures go to docs/benchmarks.md ("Engine") by hand, with the machine's load beside them: on a
shared machine the CPU time is the steadier figure, and the load average says how far to trust it.
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import shutil
import statistics
import subprocess
import sys

_SPLIT = """
import time
t0, c0 = time.perf_counter(), time.process_time()
from crewgraph import Agent, Task, Crew
from crewgraph.testing import FakeLLM
t1, c1 = time.perf_counter(), time.process_time()
a = Agent(role="R", goal="g", llm=FakeLLM(responses=["done"]))
Crew(agents=[a], tasks=[Task(description="d", expected_output="e", agent=a)]).kickoff()
t2, c2 = time.perf_counter(), time.process_time()
print(t1 - t0, c1 - c0, t2 - t1, c2 - c1)
"""

_MODULES = """
import sys
from crewgraph import Agent, Task, Crew
from crewgraph.testing import FakeLLM
before = set(sys.modules)
a = Agent(role="R", goal="g", llm=FakeLLM(responses=["done"]))
Crew(agents=[a], tasks=[Task(description="d", expected_output="e", agent=a)]).kickoff()
print(" ".join(sorted(m.split(".")[0] for m in set(sys.modules) - before if not m.startswith("crewgraph"))))
print(len(set(sys.modules) - before), "networkx" in sys.modules)
"""


def _env() -> dict[str, str]:
    # bytecode as an installed wheel has it (PYTHONDONTWRITEBYTECODE would compile every module each run)
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _instructions(code: str) -> int | None:
    """Instructions ``python -c code`` executes (valgrind's callgrind; None without valgrind):
    unlike CPU time, the count does not move with the neighbours' load."""
    if shutil.which("valgrind") is None:
        return None
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", code],
                         capture_output=True, text=True, check=True, env=_env()).stderr
    found = re.search(r"Collected : (\d+)", out)
    return int(found.group(1)) if found else None


def _load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=9, help="fresh interpreters (median reported)")
    parser.add_argument("--instructions", action="store_true",
                        help="also count instructions with valgrind (slow: ~1 min), the load-free figure")
    args = parser.parse_args()
    import crewgraph

    compileall.compile_dir(os.path.dirname(crewgraph.__file__), quiet=1)
    rows = []
    for _ in range(args.runs):
        out = subprocess.run([sys.executable, "-c", _SPLIT], capture_output=True, text=True, check=True,
                             env=_env()).stdout
        rows.append([float(x) for x in out.split()])
    med = [statistics.median(col) for col in zip(*rows, strict=True)]
    low = [min(col) for col in zip(*rows, strict=True)]
    print(f"load average before: {_load()}")
    print(f"import:   wall {med[0] * 1000:.0f} ms, CPU {med[1] * 1000:.0f} ms (fastest CPU {low[1] * 1000:.0f} ms)")
    print(f"kickoff:  wall {med[2] * 1000:.0f} ms, CPU {med[3] * 1000:.0f} ms (fastest CPU {low[3] * 1000:.0f} ms)")
    print(f"together: wall {(med[0] + med[2]) * 1000:.0f} ms, CPU {(med[1] + med[3]) * 1000:.0f} ms "
          f"(fastest CPU {min(r[1] + r[3] for r in rows) * 1000:.0f} ms; goal < 300 ms)")
    mods = subprocess.run([sys.executable, "-c", _MODULES], capture_output=True, text=True, check=True,
                          env=_env()).stdout.splitlines()
    print(f"modules the kickoff imports beside crewgraph's: {' '.join(sorted(set(mods[0].split())))}")
    count, nx = mods[1].split()
    print(f"modules imported by the kickoff: {count}; networkx imported: {nx}")
    if args.instructions:
        start, pyd = _instructions("pass"), _instructions("from pydantic import BaseModel")
        first = _instructions(_SPLIT)
        if start is None or pyd is None or first is None:
            print("instructions: valgrind is not installed")
        else:
            ratio = (first - start) / (pyd - start)
            print(f"instructions above interpreter start: import + first kickoff {(first - start) / 1e6:.0f} M, "
                  f"`from pydantic import BaseModel` {(pyd - start) / 1e6:.0f} M: {ratio:.2f}x the pydantic import "
                  "(docs/benchmarks.md: that import is 56 - 59 ms of CPU on a quiet machine)")
    print(f"load average after: {_load()}")


if __name__ == "__main__":
    main()
