"""Processes opening one new PostgreSQL schema at once and saving into it at once: none
deadlocks, none loses a save (the schema's DDL once ran beside another process's save and
deadlocked with it: ``CREATE INDEX IF NOT EXISTS`` locks its table even when the index exists)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import crewgraph
from crewgraph.checkpoint.location import open_checkpoint_store

REPO_ROOT = Path(crewgraph.__file__).resolve().parents[1]
SAVER = """
import sys
from crewgraph.checkpoint.location import open_checkpoint_store
url, run = sys.argv[1], sys.argv[2]
with open_checkpoint_store(url) as store:
    store.start_run(run, name="race", meta={})
    for i in range(40):
        store.save_node(run, f"n{i}", output=i, info={})
"""


def test_processes_creating_and_writing_one_schema_at_once(postgres_store_url: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", SAVER, postgres_store_url, f"p{i}"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(3)]
    for proc in procs:
        _out, err = proc.communicate(timeout=90)
        assert proc.returncode == 0, err[-2000:]
    with open_checkpoint_store(postgres_store_url) as store:
        assert sorted(r.run_id for r in store.list_runs()) == ["p0", "p1", "p2"]
        assert all(len(store.completed(f"p{i}")) == 40 for i in range(3))
