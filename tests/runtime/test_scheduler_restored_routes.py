"""A resumed run fires each restored node's recorded route: routers are not asked again."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import pytest

from crewgraph.checkpoint import SQLiteCheckpointStore
from crewgraph.errors import NodeExecutionError
from crewgraph.graph import ExecutionGraph, Node, NodeContext, NodeResult, RetryPolicy
from crewgraph.runtime import Scheduler


@dataclass(frozen=True, kw_only=True)
class Router(Node):
    """Answers "left" on its first call and "right" on every later one."""

    kind: ClassVar[str] = "router"
    calls: list[int] = field(default_factory=list, compare=False)

    async def run(self, ctx: NodeContext) -> NodeResult:
        self.calls.append(1)
        route = "left" if len(self.calls) == 1 else "right"
        return NodeResult(output=f"chose {route}", route=route)


@dataclass(frozen=True, kw_only=True)
class Step(Node):
    kind: ClassVar[str] = "step"
    log: list[str] = field(default_factory=list, compare=False)
    fail: list[bool] = field(default_factory=list, compare=False)
    retry: RetryPolicy = field(default_factory=lambda: RetryPolicy(max_attempts=1))

    async def run(self, ctx: NodeContext) -> NodeResult:
        self.log.append(self.id)
        if self.fail and self.fail.pop(0):
            raise RuntimeError(f"{self.id} down")
        return NodeResult(output=f"{self.id} done")


def _graph(router: Router, log: list[str], fail: list[bool]) -> ExecutionGraph:
    g = ExecutionGraph("routes")
    g.add_node(router)
    for nid in ("left", "right"):
        g.add_node(Step(id=nid, log=log))
        g.add_edge("r", nid, kind="route", route=nid)
    g.add_node(Step(id="after_left", log=log, fail=fail))
    g.add_edge("left", "after_left")
    return g


def test_resume_follows_the_recorded_branch_without_asking_the_router(tmp_path: Path) -> None:
    router, log, fail = Router(id="r"), [], [True]
    store = SQLiteCheckpointStore(tmp_path / "cp.db")
    with pytest.raises(NodeExecutionError):
        asyncio.run(Scheduler(_graph(router, log, fail), run_id="run1", checkpointer=store).run())
    assert router.calls == [1] and log == ["left", "after_left"]
    assert next(n for n in store.nodes("run1") if n.node_id == "r").info["route"] == "left"

    log.clear()
    restored = store.completed("run1")
    result = asyncio.run(
        Scheduler(_graph(router, log, fail), run_id="run1", checkpointer=store, restored=restored).run()
    )
    assert router.calls == [1]  # not asked again: it would have said "right"
    assert log == ["after_left"]  # "left" restored, "right" never ran
    assert result.outputs["after_left"] == "after_left done" and "right" not in result.outputs
    assert result.run_graph.record("r").status == "restored"
    store.close()


def test_a_routed_node_saved_without_its_route_runs_again(tmp_path: Path) -> None:
    """Checkpoints written before routes were saved: which branch was taken is unknown."""
    router, log = Router(id="r"), []
    store = SQLiteCheckpointStore(tmp_path / "cp.db")
    store.start_run("old", name="routes")
    store.save_node("old", "r", output="chose left", info={"status": "completed"})
    result = asyncio.run(
        Scheduler(_graph(router, log, []), run_id="old", checkpointer=store, restored=store.completed("old")).run()
    )
    assert router.calls == [1] and log == ["left", "after_left"]
    assert result.run_graph.record("r").status == "completed"
    store.close()


def test_restored_routes_without_a_checkpointer_rerun_routers() -> None:
    """``restored`` handed in without a store has no routes: the router runs again, never a dead end."""
    router, log = Router(id="r"), []
    result = asyncio.run(Scheduler(_graph(router, log, []), restored={"r": "chose left"}).run())
    assert router.calls == [1] and result.outputs["after_left"] == "after_left done"


