"""The scheduler: ready-set order, parallelism, retries, timeouts, cancellation, joins, routes."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pytest

from crewgraph.errors import LoopGuardError, NodeExecutionError, NodeTimeoutError
from crewgraph.events import NodeFailedEvent, NodeFinishedEvent, NodeRetriedEvent, NodeStartedEvent
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.graph import (
    ExecutionGraph,
    Node,
    NodeContext,
    NodeResult,
    RetryPolicy,
    TimeoutPolicy,
)
from crewgraph.runtime import Scheduler


@dataclass(frozen=True, kw_only=True)
class Step(Node):
    """A test node: records its start, optionally waits on a shared event, returns a value."""

    kind: ClassVar[str] = "step"
    value: Any = None
    log: list[str] = field(default_factory=list, compare=False)
    fail_times: list[int] = field(default_factory=list, compare=False)
    gate: Any = None
    sleep: float = 0.0
    route_to: str | None = None

    async def run(self, ctx: NodeContext) -> NodeResult:
        self.log.append(self.id)
        if self.fail_times and self.fail_times[0] > 0:
            self.fail_times[0] -= 1
            raise RuntimeError(f"{self.id} flaky")
        if self.gate is not None:
            await self.gate()
        if self.sleep:
            await asyncio.sleep(self.sleep)
        joined = ",".join(f"{k}={v}" for k, v in sorted(ctx.upstream.items()))
        return NodeResult(output=self.value if self.value is not None else f"{self.id}[{joined}]", route=self.route_to)


def _graph(*nodes: Node, edges: list[tuple[str, str]] = (), **meta: Any) -> ExecutionGraph:
    g = ExecutionGraph("test")
    for n in nodes:
        g.add_node(n)
    for u, v in edges:
        g.add_edge(u, v)
    g.meta.update(meta)
    return g


def run(graph: ExecutionGraph, **kw: Any) -> Any:
    return asyncio.run(Scheduler(graph, **kw).run())


def test_dependencies_run_in_order_and_pass_outputs() -> None:
    log: list[str] = []
    g = _graph(Step(id="a", log=log), Step(id="b", log=log), Step(id="c", log=log), edges=[("a", "b"), ("b", "c")])
    result = run(g)
    assert log == ["a", "b", "c"]
    assert result.outputs["c"] == "c[b=b[a=a[]]]"
    assert [r.status for r in result.run_graph.records()] == ["completed"] * 3


def test_independent_nodes_run_concurrently() -> None:
    # Each of three nodes waits until all three have started: only possible if they overlap.
    started = 0
    all_in = asyncio.Event()

    async def gate() -> None:
        nonlocal started
        started += 1
        if started == 3:
            all_in.set()
        await asyncio.wait_for(all_in.wait(), 2)

    g = _graph(*(Step(id=f"n{i}", gate=gate) for i in range(3)), Step(id="end"),
               edges=[(f"n{i}", "end") for i in range(3)])
    result = run(g)
    assert set(result.outputs) == {"n0", "n1", "n2", "end"}
    assert result.outputs["end"] == "end[n0=n0[],n1=n1[],n2=n2[]]"


def test_max_concurrency_bounds_running_steps() -> None:
    running = 0
    peak = 0

    async def gate() -> None:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.01)
        running -= 1

    g = _graph(*(Step(id=f"n{i}", gate=gate) for i in range(6)))
    run(g, max_concurrency=2)
    assert peak == 2


def test_retry_policy_retries_then_succeeds_with_events() -> None:
    events: list[Any] = []
    flaky = Step(id="flaky", fail_times=[2], retry=RetryPolicy(max_attempts=3, initial_delay=0.001, max_delay=0.002))
    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.on(NodeRetriedEvent)(lambda s, e: events.append(e))
        result = run(_graph(flaky))
    assert result.outputs["flaky"] == "flaky[]"
    assert [e.attempt for e in events] == [1, 2]
    assert result.run_graph.record("flaky").attempts == 3


def test_retries_exhausted_fail_the_run_with_node_named() -> None:
    flaky = Step(id="flaky", fail_times=[5], retry=RetryPolicy(max_attempts=2, initial_delay=0.001))
    with pytest.raises(NodeExecutionError) as info:
        run(_graph(flaky))
    assert info.value.node_id == "flaky"
    assert "flaky flaky" in str(info.value)
    assert info.value.run_graph.record("flaky").status == "failed"  # type: ignore[attr-defined]


def test_timeout_is_enforced_per_attempt() -> None:
    slow = Step(id="slow", sleep=5, timeout=TimeoutPolicy(0.05))
    with pytest.raises(NodeTimeoutError, match=r"timed out after 0\.05s"):
        run(_graph(slow))


def test_fatal_error_cancels_the_rest() -> None:
    log: list[str] = []
    long = Step(id="long", sleep=5, log=log)
    bad = Step(id="bad", fail_times=[1], log=log)
    after = Step(id="after", log=log)
    g = _graph(long, bad, after, edges=[("long", "after")])
    with pytest.raises(NodeExecutionError) as info:
        run(g)
    rg = info.value.run_graph  # type: ignore[attr-defined]
    assert rg.record("long").status == "cancelled"
    assert rg.record("after").status == "pending"
    assert "after" not in log


def test_node_events_carry_ids_kinds_and_run_id() -> None:
    seen: list[Any] = []
    with crewgraph_event_bus.scoped_handlers():
        for et in (NodeStartedEvent, NodeFinishedEvent, NodeFailedEvent):
            crewgraph_event_bus.on(et)(lambda s, e: seen.append(e))
        result = run(_graph(Step(id="a")), run_id="r1")
    assert result.run_id == "r1"
    assert [(type(e).__name__, e.node_id, e.node_kind, e.run_id) for e in seen] == [
        ("NodeStartedEvent", "a", "step", "r1"),
        ("NodeFinishedEvent", "a", "step", "r1"),
    ]


@dataclass(frozen=True, kw_only=True)
class Spawner(Node):
    kind: ClassVar[str] = "spawner"

    async def run(self, ctx: NodeContext) -> NodeResult:
        if ctx.resume is None:
            return NodeResult(spawn=[Step(id=f"{self.id}.c{i}", value=i) for i in range(3)], resume="waiting")
        return NodeResult(output=sorted(ctx.spawned.values()))


def test_spawned_children_run_and_resume_the_parent() -> None:
    result = run(_graph(Spawner(id="p")))
    assert result.outputs["p"] == [0, 1, 2]
    g = result.run_graph.graph
    assert {v for _, v, k in g.out_edges("p", data="kind") if k == "spawned"} == {"p.c0", "p.c1", "p.c2"}
    assert result.run_graph.record("p.c1").parent == "p"


def test_join_any_once_and_routes() -> None:
    log: list[str] = []
    g = ExecutionGraph("flow")
    g.add_node(Step(id="r", route_to="yes", log=log))
    g.add_node(Step(id="yes", log=log))
    g.add_node(Step(id="no", log=log))
    g.add_node(Step(id="either", log=log), join="any_once")
    g.add_edge("r", "yes", kind="route", route="yes")
    g.add_edge("r", "no", kind="route", route="no")
    g.add_edge("yes", "either", kind="or")
    g.add_edge("no", "either", kind="or")
    result = run(g)
    assert log == ["r", "yes", "either"]
    assert "no" not in result.outputs


def test_restored_outputs_are_not_recomputed() -> None:
    log: list[str] = []
    g = _graph(Step(id="a", log=log), Step(id="b", log=log), edges=[("a", "b")])
    result = run(g, restored={"a": "saved-a"})
    assert log == ["b"]
    assert result.outputs["b"] == "b[a=saved-a]"
    assert result.run_graph.record("a").status == "restored"


def test_loop_guard_stops_runaway_cycles() -> None:
    g = ExecutionGraph("loop")
    g.add_node(Step(id="a", route_to="again"), join="any")
    g.add_edge("a", "a", kind="route", route="again")
    g.meta["entry"] = ["a"]
    with pytest.raises(LoopGuardError, match="exceeded 10 node executions"):
        run(g, max_executions=10)


class _Store:
    def __init__(self) -> None:
        self.saved: list[str] = []
        self.status: str | None = None

    def start_run(self, run_id: str, *, name: str, meta: dict[str, Any]) -> None:
        self.saved.clear()

    def save_node(self, run_id: str, node_id: str, *, output: Any, info: dict[str, Any]) -> None:
        self.saved.append(node_id)

    def completed(self, run_id: str) -> dict[str, Any]:
        return {}

    def finish_run(self, run_id: str, *, status: str, error: str | None = None) -> None:
        self.status = status


def test_checkpointer_sees_each_node_before_successors() -> None:
    store = _Store()
    order: list[str] = []

    @dataclass(frozen=True, kw_only=True)
    class Check(Node):
        kind: ClassVar[str] = "check"

        async def run(self, ctx: NodeContext) -> NodeResult:
            order.append(f"{self.id} sees {sorted(store.saved)}")
            return NodeResult(output=self.id)

    g = _graph(Check(id="a"), Check(id="b"), edges=[("a", "b")])
    run(g, checkpointer=store)
    assert order == ["a sees []", "b sees ['a']"]
    assert store.status == "completed"
