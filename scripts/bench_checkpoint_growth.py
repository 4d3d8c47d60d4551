"""Checkpoint-store growth benchmark (not a test): what a checkpointed default-context crew writes.

With CrewAI's default context, task *k*'s prompt holds every earlier output. A run keeps
that text once (``crewgraph._internal.shared_prompt``); this measures whether the
checkpoint store does too. For each N it runs, in a fresh interpreter, a sequential crew
of N default-context tasks on an instant ``FakeLLM`` with ``checkpoint=CheckpointConfig(path=...)``
and prints:

- the store's size on disk (the SQLite file after a WAL checkpoint), and the bytes of the
  ``node_outputs.output`` column, of ``node_outputs.info`` and of the shared context entries;
- the CPU of the kickoff, and of the store's saves alone (``_save``: pickling plus the
  committed transaction, fsync included);
- the CPU of ``completed()`` (what a resume loads), and that the loaded outputs' messages
  read as the run's own;
- the CPU of pickling the N task outputs alone: as plain pickles (what the store wrote
  before) and as the store pickles them now (``-`` on a tree without the shared format).

Run: ``cd /tmp && PYTHONPATH=<tree> <tree>/.venv/bin/python <tree>/scripts/bench_checkpoint_growth.py
[--sizes 500,2000]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from typing import Any

CASE = r"""
import json, os, resource, sqlite3, sys, tempfile, time
n = int(sys.argv[1])
from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig, SQLiteCheckpointStore
from crewgraph.testing import FakeLLM

def build(n, path):
    llm = FakeLLM(default="done " * 20)
    a = Agent(role="R", goal="g", backstory="b", llm=llm, respect_context_window=False)
    tasks = [Task(description=f"task {i}", expected_output="e", agent=a) for i in range(n)]
    return Crew(agents=[a], tasks=tasks, checkpoint=CheckpointConfig(path=path))

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

spent = [0.0]
real_save = SQLiteCheckpointStore._save
def timed_save(self, *args, **kwargs):
    t = cpu()
    try:
        return real_save(self, *args, **kwargs)
    finally:
        spent[0] += cpu() - t
SQLiteCheckpointStore._save = timed_save

folder = tempfile.mkdtemp(prefix="ckptgrowth")
build(2, os.path.join(folder, "warm.db")).kickoff()  # lazy imports outside the figures
spent[0] = 0.0
path = os.path.join(folder, "run.db")
crew = build(n, path)
t = cpu()
out = crew.kickoff()
kickoff_cpu = cpu() - t
conn = sqlite3.connect(path)
conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
output_bytes, info_bytes = conn.execute(
    "SELECT SUM(LENGTH(output)), SUM(LENGTH(info)) FROM node_outputs").fetchone()
tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
entry_bytes = (conn.execute("SELECT SUM(LENGTH(text)) FROM context_entries").fetchone()[0] or 0
               if "context_entries" in tables else 0)
conn.close()
size = os.path.getsize(path)
store = SQLiteCheckpointStore(path)
run_id = store.list_runs()[0].run_id
t = cpu()
done = store.completed(run_id)
load_cpu = cpu() - t
same = [o.messages for o in out.tasks_output] == [done[k].messages for k in done if k.endswith(".agent")]
# the pickling alone, the part of a save the format changes: each output as a plain pickle
# (what the store wrote before) and as the store pickles it now (when this tree has it)
import pickle
t = cpu()
plain = sum(len(pickle.dumps(o, protocol=pickle.HIGHEST_PROTOCOL)) for o in out.tasks_output)
plain_cpu = cpu() - t
shared_cpu = None
try:
    from crewgraph.checkpoint._shared_context import SharedContext
except ImportError:
    pass
else:
    shared = SharedContext()
    t = cpu()
    for o in out.tasks_output:
        shared.committed("r", shared.dumps("r", o))
    shared_cpu = cpu() - t
assert len([k for k in done if k.endswith(".agent")]) == n
store.close()
print(json.dumps({"size": size, "output": output_bytes, "info": info_bytes, "entries": entry_bytes,
                  "kickoff": kickoff_cpu, "save": spent[0], "load": load_cpu, "same": same,
                  "pickle_plain": plain_cpu, "pickle_shared": shared_cpu, "plain_bytes": plain,
                  "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run_case(n: int, timeout: float) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-c", CASE, str(n)], capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise SystemExit(f"N={n} failed:\n{proc.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,2000")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per case")
    args = parser.parse_args()
    mb = 1024 * 1024
    print(f"{'N':>6} {'store MB':>9} {'outputs MB':>11} {'info MB':>8} {'entries MB':>11} "
          f"{'kickoff s':>10} {'saves s':>8} {'ms/save':>8} {'load s':>7} {'RSS MB':>7} same "
          f"{'plain pickle s':>14} {'shared pickle s':>15}")
    for n in (int(s) for s in args.sizes.split(",")):
        r = run_case(n, args.timeout)
        shared = "-" if r["pickle_shared"] is None else f"{r['pickle_shared']:.3f}"
        print(f"{n:>6} {r['size'] / mb:>9.1f} {r['output'] / mb:>11.1f} {r['info'] / mb:>8.1f} "
              f"{r['entries'] / mb:>11.2f} {r['kickoff']:>10.2f} {r['save']:>8.2f} "
              f"{r['save'] / n * 1000:>8.2f} {r['load']:>7.2f} {r['rss']:>7.0f} {r['same']!s:>4} "
              f"{r['pickle_plain']:>14.3f} {shared:>15}")


if __name__ == "__main__":
    main()
