"""Benchmark: what persisting a flow costs per method (not a timed test).

A chain of ``--n`` do-nothing ``async def`` methods, kicked off plain and with
``@persist`` (default SQLite store in a temporary folder): with persistence
each method's completion is one SQLite transaction -- the state saved after
it and, for per-method resume, its journaled output, committed together.

Run: ``.venv/bin/python scripts/bench_flow_persist.py [--n 50] [--repeat 10]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _per_method(cls: type[Any], n: int, repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        flow = cls()
        flow.compile()
        start = time.perf_counter()
        flow.kickoff()
        times.append((time.perf_counter() - start) / (n + 1) * 1000)
    return statistics.median(times), min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    os.environ["CREWGRAPH_STORAGE_DIR"] = tempfile.mkdtemp(prefix="crewgraph-bench-")
    from bench_flow import chain_flow

    from crewgraph.flow.persistence import persist

    plain = chain_flow(args.n, True)
    saved = persist()(type("PersistedChain", (plain,), {}))
    print(f"python {sys.version.split()[0]}, n={args.n}, repeat={args.repeat}")
    for label, cls in (("plain", plain), ("@persist", saved)):
        median, best = _per_method(cls, args.n, args.repeat)
        print(f"async chain, {label:<9} median {median:7.3f} ms/method   best {best:7.3f} ms/method")


if __name__ == "__main__":
    main()
