"""Import cost (not a test): ``from crewgraph import Agent, Task, Crew, Process, LLM`` against
``from pydantic import BaseModel``, in fresh interpreters with bytecode compiled first.

Run from /tmp so only PYTHONPATH decides which tree is measured:
    cd /tmp && PYTHONPATH=/path/to/tree /path/to/.venv/bin/python /path/to/tree/scripts/bench_import.py
        [--runs N] [--instructions]

CPU time: the median of N fresh interpreters of each statement (alternated, so the load of a
shared machine weighs on both alike), each timing its statement with ``time.process_time()``.
``--instructions`` adds valgrind's count of the instructions each executes above interpreter
start (``python -c pass``): steady to under 0.1% whatever the load. Both print a third line,
``from pydantic import BaseModel, Field``: the floor of any package that defines one pydantic
model at import (the first model class imports ``pydantic.fields``, which brings
``pydantic.types``, ``annotated_types``, ``hashlib`` and ``secrets``; ``BaseModel`` alone does not).
Figures go to docs/benchmarks.md ("Engine") by hand, with the load average beside them.
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

CREWGRAPH = "from crewgraph import Agent, Task, Crew, Process, LLM"
PYDANTIC = "from pydantic import BaseModel"
FLOOR = "from pydantic import BaseModel, Field"
_TIMED = "import time;t=time.process_time();{};print(time.process_time()-t)"


def _env() -> dict[str, str]:
    # Bytecode as an installed wheel has it: under PYTHONDONTWRITEBYTECODE every crewgraph module
    # would be compiled from source on each run while pydantic's comes from its wheel.
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def cpu(stmt: str) -> float:
    """CPU seconds of ``stmt`` in one fresh interpreter (interpreter start excluded)."""
    out = subprocess.run(
        [sys.executable, "-c", _TIMED.format(stmt)], capture_output=True, text=True, check=True, env=_env()
    ).stdout
    return float(out)


def instructions(stmt: str) -> int | None:
    """Instructions ``python -c stmt`` executes, counted by valgrind (None without valgrind)."""
    if shutil.which("valgrind") is None:
        return None
    err = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", stmt],
        capture_output=True, text=True, check=True, env=_env(),
    ).stderr
    found = re.search(r"Collected : (\d+)", err)
    return int(found.group(1)) if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh interpreters per statement (default 5)")
    parser.add_argument("--instructions", action="store_true", help="also count instructions with valgrind")
    args = parser.parse_args()
    import crewgraph

    compileall.compile_dir(os.path.dirname(crewgraph.__file__), quiet=1)
    print(f"crewgraph from {os.path.dirname(crewgraph.__file__)}; load average {os.getloadavg()[0]:.1f}")
    samples: dict[str, list[float]] = {PYDANTIC: [], CREWGRAPH: [], FLOOR: []}
    for _ in range(args.runs):
        for stmt, seen in samples.items():
            seen.append(cpu(stmt))
    base = statistics.median(samples[PYDANTIC])
    for stmt, seen in samples.items():
        med = statistics.median(seen)
        print(f"CPU  {stmt:55} median {med * 1000:6.1f} ms  {med / base:.3f}x  "
              f"(range {min(seen) * 1000:.0f} - {max(seen) * 1000:.0f} ms)")
    if not args.instructions:
        return
    start = instructions("pass")
    counts = {stmt: instructions(stmt) for stmt in samples}
    if start is None or None in counts.values():
        print("instructions: valgrind not installed")
        return
    above = {stmt: n - start for stmt, n in counts.items() if n is not None}
    for stmt, n in above.items():
        print(f"INSN {stmt:55} {n / 1e6:6.1f} M above start  {n / above[PYDANTIC]:.3f}x")


if __name__ == "__main__":
    main()
