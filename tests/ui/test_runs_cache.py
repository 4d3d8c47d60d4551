"""``GET /runs`` computes the stored runs once per change of the stores, and never serves a stale list."""

from __future__ import annotations

import gzip
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from crewgraph.ui._runs_cache import Body, StoredRunsCache


def _db(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE IF NOT EXISTS t (x INTEGER)")


def test_a_commit_by_another_connection_makes_the_list_fresh(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    _db(db)
    cache = StoredRunsCache(db, tmp_path / "flows.db")  # the flow store does not exist yet
    calls: list[int] = []

    def compute() -> bytes:
        with sqlite3.connect(db) as conn:
            rows = [x for (x,) in conn.execute("SELECT x FROM t ORDER BY x")]
        calls.append(len(rows))
        return json.dumps(rows).encode()

    def listed(live: Any = ()) -> list[int]:
        return list(json.loads(cache.get("k", live, compute).raw))

    assert listed() == [] and listed() == []
    assert calls == [0]  # the second answer came from the cache
    for value in range(3):  # each commit, however quick after the last, is seen
        with sqlite3.connect(db) as conn:
            conn.execute("INSERT INTO t VALUES (?)", (value,))
        assert listed() == list(range(value + 1))
    assert calls == [0, 1, 2, 3]
    _db(tmp_path / "flows.db")  # a store appearing is a change too
    listed()
    assert calls == [0, 1, 2, 3, 3]
    listed(("job1", "running"))  # and so is a change of the server's live jobs
    listed(("job1", "running"))
    assert calls == [0, 1, 2, 3, 3, 3]
    cache.close()


def test_simultaneous_readers_of_a_stale_list_compute_it_once(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    _db(db)
    cache = StoredRunsCache(db)
    computing = threading.Event()
    release = threading.Event()
    calls: list[int] = []

    def compute() -> bytes:
        calls.append(1)
        computing.set()
        assert release.wait(10)
        return b'[{"run_id": "r1"}]'

    results: list[Body] = []
    readers = [threading.Thread(target=lambda: results.append(cache.get("k", (), compute))) for _ in range(20)]
    for reader in readers:
        reader.start()
    assert computing.wait(10)
    release.set()
    for reader in readers:
        reader.join(10)
    assert len(calls) == 1 and [r.raw for r in results] == [b'[{"run_id": "r1"}]'] * 20
    assert len({id(r) for r in results}) == 1  # one body, compressed at most once
    assert gzip.decompress(results[0].gzipped) == results[0].raw
    cache.close()


def test_the_app_lists_a_run_finished_after_the_list_was_cached(client: Any, wait_job: Any) -> None:
    assert client.get("/runs").json()["runs"] == []
    for expected in (1, 2):
        job = client.post("/kickoff", json={"target": "democrew", "inputs": {"topic": f"t{expected}"}}).json()
        wait_job(client, job)
        runs = client.get("/runs?kind=crew").json()["runs"]
        assert len(runs) == expected and runs[0]["status"] == "completed"


def test_the_list_is_sent_gzipped_to_clients_that_accept_it(client: Any) -> None:
    plain = client.get("/runs", headers={"Accept-Encoding": "identity"})
    zipped = client.get("/runs", headers={"Accept-Encoding": "gzip, deflate"})
    assert plain.headers.get("content-encoding") is None and zipped.headers["content-encoding"] == "gzip"
    assert plain.json() == zipped.json()  # the client undoes the gzip


def test_a_postgresql_store_is_watched_by_its_runs(postgres_store_url: str) -> None:
    from crewgraph.checkpoint.location import open_checkpoint_store
    from crewgraph.ui._runs import crew_runs, flow_runs

    url = postgres_store_url
    cache = StoredRunsCache(url, url)  # one schema holds the crew and the flow runs
    calls: list[int] = []

    def compute() -> bytes:
        runs = crew_runs(url) + flow_runs(url)
        calls.append(len(runs))
        return json.dumps([r["run_id"] for r in runs]).encode()

    assert json.loads(cache.get("k", (), compute).raw) == []
    assert json.loads(cache.get("k", (), compute).raw) == [] and calls == [0]  # unchanged: cached
    with open_checkpoint_store(url) as store:
        store.start_run("r1", name="crew", meta={})
    assert json.loads(cache.get("k", (), compute).raw) == ["r1"] and calls == [0, 1]
    with open_checkpoint_store(url) as store:
        store.finish_run("r1", status="completed")
    cache.get("k", (), compute)
    assert calls == [0, 1, 1]  # an update is a change too
    cache.close()
