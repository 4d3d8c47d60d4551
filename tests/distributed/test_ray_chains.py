"""A task's chain of small nodes is one Ray round trip, and the run is the same as a local one.

Counts dispatches (``RayExecutor.dispatches``: Ray tasks submitted), not time: the
time figures are in docs/benchmarks.md (scripts/bench_ray_dispatch.py). Each run is
compared with a local run of the same crew: outputs, the events the driver's bus saw
(type and node, in order), the executed graph and the checkpoint.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel

from crewgraph import Agent, Crew, Process, Task
from crewgraph.checkpoint import CheckpointConfig, SQLiteCheckpointStore
from crewgraph.events.base import BaseEvent
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.graph.context import NodeContext
from crewgraph.graph.execution_graph import ExecutionGraph
from crewgraph.graph.node import Node, NodeResult
from crewgraph.graph.policies import RetryPolicy, TimeoutPolicy
from crewgraph.outputs import TaskOutput
from crewgraph.runtime import Scheduler
from crewgraph.testing import FakeLLM, FakeRequest, FakeToolCall
from crewgraph.tools import tool


@pytest.fixture(autouse=True)
def _ray_installed() -> None:
    """Skips at setup rather than at import (function scope, so the module is not made one xdist group), so collecting the suite does not import ray."""
    pytest.importorskip("ray")


class Product(BaseModel):
    value: int


@tool("multiply")
def multiply(a: int, b: int) -> str:
    """Multiply two numbers."""
    return str(a * b)


def _answer(request: FakeRequest) -> Any:
    """A tool call first, then the product as JSON; the second task answers in words."""
    if "report" in request.prompt:
        return "the product is reported"
    if request.tool_names and not any(m.get("role") == "tool" for m in request.messages):
        return FakeToolCall("multiply", {"a": 6, "b": 7})
    return '{"value": 42}'


def _positive(output: TaskOutput) -> tuple[bool, Any]:
    return (True, output) if output.pydantic and output.pydantic.value > 0 else (False, "must be positive")


def _crew(llm: FakeLLM, db: Path, retries: int = 0) -> Crew:
    calc = Agent(role="Calculator", goal="compute", backstory="careful", llm=llm, tools=[multiply],
                 max_retry_limit=retries)
    writer = Agent(role="Writer", goal="write", backstory="terse", llm=llm, max_retry_limit=0)
    tasks = [
        Task(name="compute", description="compute six times seven", expected_output="n", agent=calc,
             output_pydantic=Product, guardrail=_positive),
        Task(name="report", description="report the product", expected_output="s", agent=writer),
    ]
    return Crew(name="chains", agents=[calc, writer], tasks=tasks, process=Process.sequential,
                checkpoint=CheckpointConfig(path=db))


def _kickoff(crew: Crew, executor: Any = None) -> tuple[Any, list[tuple[str, str | None]]]:
    """The output and the (event type, node id) of every node-level event the bus saw."""
    seen: list[tuple[str, str | None]] = []

    def keep(source: Any, event: BaseEvent) -> None:
        if event.node_id is not None:
            seen.append((type(event).__name__, event.node_id))

    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.register_handler(BaseEvent, keep, inline=True)
        out = crew.kickoff(executor=executor)
    return out, seen


def _shape(out: Any) -> tuple[list[Any], list[Any]]:
    g = out.graph.graph
    nodes = sorted((nid, d["kind"], d["record"].status, d["record"].attempts) for nid, d in g.nodes(data=True))
    edges = sorted((u, v, str(d.get("kind"))) for u, v, d in g.edges(data=True))
    return nodes, edges


def _checkpoint(db: Path, run_id: str) -> list[tuple[str, Any]]:
    with SQLiteCheckpointStore(db) as store:
        saved = store.completed(run_id)
    return sorted((nid, getattr(v, "raw", repr(v))) for nid, v in saved.items())


def _same(local: Any, remote: Any, db: Path) -> None:
    (lout, levents), (rout, revents) = local, remote
    assert rout.raw == lout.raw
    assert [(t.name, t.raw, t.pydantic) for t in rout.tasks_output] == [
        (t.name, t.raw, t.pydantic) for t in lout.tasks_output]
    assert rout.token_usage == lout.token_usage
    assert revents == levents
    assert _shape(rout) == _shape(lout)
    assert _checkpoint(db, rout.run_id) == _checkpoint(db, lout.run_id)


def test_a_task_with_a_tool_call_conversion_and_guardrail_is_one_round_trip(ray_cluster: Any, tmp_path: Path) -> None:
    from crewgraph.distributed import RayExecutor

    db = tmp_path / "cp.db"
    local = _kickoff(_crew(FakeLLM(default=_answer), db))
    batched = RayExecutor()
    remote = _kickoff(_crew(FakeLLM(default=_answer), db), batched)
    _same(local, remote, db)
    assert remote[0].tasks_output[0].pydantic == Product(value=42)
    kinds = {d["kind"] for _, d in remote[0].graph.graph.nodes(data=True)}
    assert {"tool", "convert", "guardrail", "agent_step"} <= kinds
    assert batched.dispatches == 2  # one Ray task per task

    alone = RayExecutor(batch_chains=False)
    per_step = _kickoff(_crew(FakeLLM(default=_answer), db), alone)
    _same(local, per_step, db)
    # the step, its tool call, the step resumed, convert, guardrail; then the second task's step
    assert alone.dispatches == 6


def test_a_step_failing_inside_a_chain_is_retried_on_the_driver_as_locally(
    ray_cluster: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crewgraph.distributed import RayExecutor
    from crewgraph.runtime import _attempts

    async def no_wait(seconds: float) -> None:
        return None

    monkeypatch.setattr(_attempts, "_sleep", no_wait)  # the backoff, not what is checked here

    def script() -> FakeLLM:
        # the step asks for the tool, then its model fails once when the step resumes
        return FakeLLM([FakeToolCall("multiply", {"a": 6, "b": 7}), ConnectionError("model down")],
                       default=_answer)

    db = tmp_path / "retry.db"
    local = _kickoff(_crew(script(), db, retries=1))
    executor = RayExecutor()
    remote = _kickoff(_crew(script(), db, retries=1), executor)
    _same(local, remote, db)
    assert ("NodeRetriedEvent", "t1_compute.agent") in remote[1]
    records = {nid: d["record"] for nid, d in remote[0].graph.graph.nodes(data=True)}
    assert records["t1_compute.agent"].attempts == 2
    # the first chain ended at the failed step; its retry is a second chain (to the guardrail)
    assert executor.dispatches == 3


@dataclass(frozen=True, kw_only=True)
class Link(Node):
    """Appends its id (and attempt) to its predecessor's output; with ``hang_once`` its first
    attempt hangs (until its timeout cancels it)."""

    kind: ClassVar[str] = "link"
    hang_once: bool = False

    async def run(self, ctx: NodeContext) -> NodeResult:
        if self.hang_once and ctx.attempt == 1:
            await asyncio.sleep(20)
        before = next(iter(ctx.upstream.values()), "")
        return NodeResult(output=f"{before}>{self.id}@{ctx.attempt}:{os.getpid() != ctx.inputs['driver']}")


def test_a_step_timing_out_inside_a_chain_cancels_the_chain_and_is_retried(ray_cluster: Any) -> None:
    from crewgraph.distributed import RayExecutor

    graph = ExecutionGraph(name="timeouts")
    graph.add_node(Link(id="a"), task="t")
    graph.add_node(Link(id="b", hang_once=True, timeout=TimeoutPolicy(1.5),
                        retry=RetryPolicy(max_attempts=3, initial_delay=0.01)), task="t")
    graph.add_node(Link(id="c"), task="t")
    graph.add_edge("a", "b")
    graph.add_edge("b", "c")
    executor = RayExecutor()
    scheduler = Scheduler(graph, inputs={"driver": os.getpid()}, executor=executor)
    result = asyncio.run(scheduler.run())
    attempts = scheduler.records["b"].attempts
    assert attempts >= 2 and scheduler.records["b"].status == "completed"
    assert result.outputs["c"] == f">a@1:True>b@{attempts}:True>c@1:True"  # every step ran on a worker
    # the chain a-b-c, then one chain (b-c) per retry of b: the timed-out chain was cancelled
    assert executor.dispatches == attempts


def test_a_hierarchical_managers_delegations_run_inside_its_tasks_chain(ray_cluster: Any) -> None:
    from crewgraph.distributed import RayExecutor

    def crew() -> Crew:
        manager = FakeLLM([
            FakeToolCall("Delegate_work_to_coworker",
                         {"task": "Find owl facts", "context": "blog", "coworker": "Researcher"}),
            "notes: owl facts",
            "the post",
        ])
        researcher = Agent(role="Researcher", goal="Find facts", backstory="b", llm=FakeLLM(["owl facts"]))
        tasks = [Task(name="research", description="Research owls", expected_output="notes"),
                 Task(name="write", description="Write a post", expected_output="post")]
        return Crew(agents=[researcher], tasks=tasks, process=Process.hierarchical, manager_llm=manager)

    local = _kickoff(crew())
    executor = RayExecutor()
    remote = _kickoff(crew(), executor)
    assert remote[0].raw == local[0].raw == "the post"
    assert remote[1] == local[1]
    assert _shape(remote[0]) == _shape(local[0])
    assert remote[0].graph.record("t1_research.manager.it1.0.delegate.researcher").status == "completed"
    assert executor.dispatches == 2  # the manager, its delegated step, the manager resumed: one Ray task
