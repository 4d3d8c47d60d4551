"""Live updates on the real server: bus events while a run of this server goes; store polling for
a run of another process."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx


def _events(lines: Iterator[str], until: str, limit: int = 1000) -> list[dict[str, Any]]:
    """Read SSE ``data:`` lines until an event of type ``until`` (bounded by ``limit`` lines)."""
    found: list[dict[str, Any]] = []
    for count, line in enumerate(lines):
        if line.startswith("data: "):
            found.append(json.loads(line[6:]))
            if found[-1]["type"] == until:
                return found
        if count > limit:
            break
    raise AssertionError(f"no {until!r} event in {[e['type'] for e in found]}")


def test_a_running_run_streams_its_bus_events(server: str, project: Any) -> None:
    module = sys.modules[project.crew.split(":")[0]]  # loaded when the server registered it
    gate = threading.Event()
    module.GATE = gate  # the run's tool call waits for it
    with httpx.Client(base_url=server, timeout=10) as http:
        started = http.post("/kickoff", json={"target": "democrew", "inputs": {"topic": "dogs"}}).json()
        run_id = started["run_id"]
        assert started["status"] == "running"
        try:
            during = http.get(f"/runs/{run_id}").json()
            assert during["status"] == "running" and during["live"] == "events"
            assert during["actions"]["resume"] is False
            assert http.post(f"/runs/{run_id}/resume", json={}).status_code == 409  # not while it runs
            with http.stream("GET", f"/runs/{run_id}/events") as stream:
                lines = stream.iter_lines()
                assert _events(lines, "hello")[0]["source"] == "events"
                # The run starts on the server's thread: under load its first step may still be
                # pending for a moment; it then holds "running" while the gated tool call waits.
                deadline = time.monotonic() + 15
                step = http.get(f"/runs/{run_id}/nodes/t1_research_topic.agent").json()
                while step["status"] == "pending" and time.monotonic() < deadline:
                    time.sleep(0.05)
                    step = http.get(f"/runs/{run_id}/nodes/t1_research_topic.agent").json()
                assert step["status"] == "running"
                gate.set()
                events = _events(lines, "end")
        finally:
            gate.set()
        kinds = [e["type"] for e in events]
        assert "tool_usage_finished" in kinds and "job_finished" in kinds
        finished = {e["node_id"] for e in events if e["type"] == "node_finished"}
        assert {"t1_research_topic.agent", "t2_summarise.agent"} <= finished
        assert http.get(f"/runs/{run_id}").json()["status"] == "completed"


def test_a_run_of_another_process_is_polled(server: str, project: Any) -> None:
    from crewgraph.checkpoint import (
        CheckpointConfig,
        SQLiteCheckpointStore,
        default_checkpoint_path,
    )

    crew = sys.modules[project.crew.split(":")[0]].build()
    crew.checkpoint = CheckpointConfig()
    result = crew.kickoff(inputs={"topic": "owls"})  # not through the server: it has no trace of it
    with httpx.Client(base_url=server, timeout=10) as http:
        run = http.get(f"/runs/{result.run_id}").json()
        assert run["live"] == "polling" and run["status"] == "completed"
        node = http.get(f"/runs/{result.run_id}/nodes/t1_research_topic.agent").json()
        assert node["output"] == "cats purr" and node["recorded_by_this_server"] is False
        with http.stream("GET", f"/runs/{result.run_id}/events") as stream:
            lines = stream.iter_lines()
            assert _events(lines, "hello")[0]["source"] == "polling"
            with SQLiteCheckpointStore(default_checkpoint_path()) as store:
                store.finish_run(result.run_id, status="cancelled")  # what another process would write
            changed = _events(lines, "store_changed")
    assert changed[-1]["status"] == "cancelled"
