"""Benchmark: a node save on the PostgreSQL checkpoint store vs SQLite (not a timed test).

A save is one committed transaction either way (SQLite: WAL + fsync; PostgreSQL: the server's
WAL flush, and a per-schema advisory lock serialising writers). This measures ``--n`` saves of a
small output from one process on each store, then ``--procs`` processes saving at once into one
PostgreSQL schema (the serialised writers' cost), on a throwaway server started from Debian's
package on 127.0.0.1 (``fsync=off`` as in the tests, so the figures are the store's own cost,
not the disk's).

Run: ``.venv/bin/python scripts/bench_pg_store.py [--n 300] [--procs 4]``
"""

from __future__ import annotations

import argparse
import multiprocessing
import secrets
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))


def _saves(location: str | Path, n: int, run: str) -> float:
    """Seconds per save of ``n`` node saves into run ``run``."""
    from crewgraph.checkpoint.location import open_checkpoint_store

    with open_checkpoint_store(location) as store:
        store.start_run(run, name="bench", meta={})
        start = time.perf_counter()
        for i in range(n):
            store.save_node(run, f"n{i}", output={"text": "x" * 200, "i": i}, info={"duration_ms": 1.0})
        return (time.perf_counter() - start) / n


def _worker(args: tuple[str, int, str]) -> float:
    return _saves(*args)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--procs", type=int, default=4)
    opts = parser.parse_args()
    from _db_servers import serve_postgres

    server = serve_postgres()
    url = next(server)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            sqlite = _saves(Path(tmp) / "cp.db", opts.n, "solo")
        schema = f"{url}?schema=bench_{secrets.token_hex(4)}"
        pg = _saves(schema, opts.n, "solo")
        with multiprocessing.get_context("spawn").Pool(opts.procs) as pool:
            start = time.perf_counter()
            each = pool.map(_worker, [(schema, opts.n, f"p{i}") for i in range(opts.procs)])
            wall = time.perf_counter() - start
        print(f"one process, {opts.n} saves: SQLite {sqlite * 1000:.2f} ms/save, PostgreSQL {pg * 1000:.2f} ms/save")
        print(f"{opts.procs} processes at once on PostgreSQL: {sum(each) / len(each) * 1000:.2f} ms/save each, "
              f"{opts.procs * opts.n / wall:.0f} saves/s in all (wall {wall:.2f} s, process starts included)")
    finally:
        server.close()


if __name__ == "__main__":
    main()
