"""Faults on Ray: a worker killed mid-node, an unreachable cluster, a driver that died."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.distributed import RayExecutor
from crewgraph.errors import ConfigurationError, CrewGraphError
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.events.node_events import NodeRetriedEvent
from crewgraph.graph.context import NodeContext
from crewgraph.graph.execution_graph import ExecutionGraph
from crewgraph.graph.node import Node, NodeResult
from crewgraph.graph.policies import RetryPolicy
from crewgraph.runtime import Scheduler
from crewgraph.testing import FakeLLM


@dataclass(frozen=True, kw_only=True)
class SlowOnce(Node):
    """First attempt: writes its worker's pid to ``pid_file`` and hangs; later ones answer."""

    kind: ClassVar[str] = "slow_once"
    pid_file: str

    async def run(self, ctx: NodeContext) -> NodeResult:
        if ctx.attempt == 1:
            Path(self.pid_file).write_text(str(os.getpid()), encoding="utf-8")
            await asyncio.sleep(60)
        return NodeResult(output={"attempt": ctx.attempt, "pid": os.getpid()})


def _kill_when_written(pid_file: Path, killed: list[int]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if pid_file.exists() and pid_file.read_text(encoding="utf-8").strip():
            pid = int(pid_file.read_text(encoding="utf-8"))
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
            return
        time.sleep(0.05)


def test_a_worker_killed_mid_node_makes_the_node_retry_on_another_worker(ray_cluster: Any, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    graph = ExecutionGraph(name="fault")
    graph.add_node(SlowOnce(id="slow", pid_file=str(pid_file), retry=RetryPolicy(max_attempts=3, initial_delay=0.1)))
    killed: list[int] = []
    retried: list[NodeRetriedEvent] = []
    killer = threading.Thread(target=_kill_when_written, args=(pid_file, killed), daemon=True)
    killer.start()
    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.register_handler(NodeRetriedEvent, lambda source, event: retried.append(event), inline=True)
        scheduler = Scheduler(graph, executor=RayExecutor())
        result = asyncio.run(scheduler.run())
    killer.join(timeout=5)
    assert killed, "the step never started on a worker"
    out = result.outputs["slow"]
    assert out["attempt"] == 2 and out["pid"] != killed[0] and out["pid"] != os.getpid()
    assert scheduler.records["slow"].attempts == 2
    assert len(retried) == 1 and "worker running it died" in retried[0].error


def test_an_unreachable_cluster_is_one_clear_error_at_kickoff(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    llm = FakeLLM(["never used"])
    agent = Agent(role="W", goal="g", backstory="b", llm=llm)
    crew = Crew(agents=[agent], tasks=[Task(description="d", expected_output="e", agent=agent)])
    start = time.monotonic()
    with pytest.raises(ConfigurationError, match=rf"no Ray cluster answers at '127\.0\.0\.1:{port}'"):
        crew.kickoff(executor=RayExecutor(f"127.0.0.1:{port}", connect_timeout=2))
    assert time.monotonic() - start < 15
    assert llm.call_count == 0


def _crew(llm: Any, db: Path) -> Crew:
    agent = Agent(role="Writer", goal="write", backstory="b", llm=llm, max_retry_limit=0)
    tasks = [Task(name=f"step{i}", description=f"Step {i}", expected_output="text", agent=agent) for i in (1, 2, 3)]
    return Crew(name="ray-resume", agents=[agent], tasks=tasks, checkpoint=CheckpointConfig(path=db))


def test_a_run_checkpointed_on_ray_resumes_from_its_checkpoints(ray_cluster: Any, tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    first = FakeLLM(["one", RuntimeError("driver lost its provider")])
    with pytest.raises(CrewGraphError) as info:
        _crew(first, db).kickoff(executor=RayExecutor())
    run_id = str(info.value.run_id)  # type: ignore[attr-defined]
    assert first.call_count == 2  # the hosted model's calls are counted on the driver's object
    again = FakeLLM(["two", "three"])
    out = _crew(again, db).kickoff(from_checkpoint=run_id, executor=RayExecutor())
    assert [t.raw for t in out.tasks_output] == ["one", "two", "three"]
    assert again.call_count == 2  # step 1 was restored, not run again
    restored = [nid for nid, d in out.graph.graph.nodes(data=True) if d["record"].status == "restored"]
    assert any(nid.endswith(".agent") and "step1" in nid for nid in restored)
