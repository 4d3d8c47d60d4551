"""The execution-boundary hooks on a flow kickoff, as CrewAI's own flow tests exercise them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph.events import FlowStartedEvent, crewgraph_event_bus
from crewgraph.flow import Flow, listen, start
from crewgraph.flow.human_feedback import PersistedInputProvider
from crewgraph.flow.persistence import SQLiteFlowPersistence
from crewgraph.hooks import HookAborted, InterceptionPoint, clear_all_hooks, on


@pytest.fixture(autouse=True)
def _clean() -> Iterator[None]:
    clear_all_hooks()
    yield
    clear_all_hooks()


class SimpleFlow(Flow):
    @start()
    def begin(self) -> str:
        return "begin"

    @listen(begin)
    def finish(self, _: Any) -> str:
        return "flow-result"


class FailingFlow(Flow):
    @start()
    def begin(self) -> None:
        raise RuntimeError("flow boom")


class ReentrantFailingFlow(Flow):
    @start()
    async def begin(self) -> str:
        if getattr(self, "_reentered", False):
            return "inner-ok"
        self._reentered = True
        await self.kickoff_async()
        raise RuntimeError("outer boom")


def test_all_boundary_points_fire_once_in_order() -> None:
    fired: list[str] = []
    for point in (InterceptionPoint.EXECUTION_START, InterceptionPoint.INPUT,
                  InterceptionPoint.OUTPUT, InterceptionPoint.EXECUTION_END):
        @on(point)
        def probe(ctx: Any, _point: InterceptionPoint = point) -> None:
            assert ctx.crew is None and isinstance(ctx.flow, SimpleFlow)
            fired.append(_point.value)

    SimpleFlow().kickoff(inputs={"seed": 1})
    assert fired == ["execution_start", "input", "output", "execution_end"]


def test_output_rewrite_is_the_result() -> None:
    @on(InterceptionPoint.OUTPUT)
    def rewrite(ctx: Any) -> str:
        return "intercepted"

    assert SimpleFlow().kickoff() == "intercepted"


def test_input_rewrite_lands_in_state_and_started_event() -> None:
    @on(InterceptionPoint.INPUT)
    def inject(ctx: Any) -> dict[str, Any]:
        return {**(ctx.payload or {}), "injected": "by-hook", "api_key": "[REDACTED]"}

    class StateReader(Flow):
        @start()
        def begin(self) -> str:
            return str(self.state["injected"])

    seen: list[Any] = []
    with crewgraph_event_bus.scoped_handlers():
        @crewgraph_event_bus.on(FlowStartedEvent)
        def capture(source: Any, event: FlowStartedEvent) -> None:
            seen.append(event.inputs)

        assert StateReader().kickoff(inputs={"seed": 1, "api_key": "sk-live"}) == "by-hook"
        crewgraph_event_bus.flush()
    assert seen == [{"seed": 1, "injected": "by-hook", "api_key": "[REDACTED]"}]


def test_execution_start_rewrite_of_id_redirects_the_state() -> None:
    new_id = "0b8ee866-77b3-4dc6-9de4-90a92cbc9fcf"

    @on(InterceptionPoint.EXECUTION_START)
    def rewrite(ctx: Any) -> dict[str, Any]:
        return {**(ctx.payload or {}), "id": new_id}

    flow = SimpleFlow()
    flow.kickoff(inputs={"id": "2f9deb0a-41c5-4f4e-9be9-3a5a34c4dc94"})
    assert flow.flow_id == new_id


def test_abort_at_execution_start_stops_before_any_method_and_skips_end() -> None:
    ends: list[Any] = []

    @on(InterceptionPoint.EXECUTION_START)
    def block(ctx: Any) -> None:
        raise HookAborted(reason="not allowed", source="policy")

    @on(InterceptionPoint.EXECUTION_END)
    def capture(ctx: Any) -> None:
        ends.append(ctx)

    flow = SimpleFlow()
    with pytest.raises(HookAborted) as err:
        flow.kickoff()
    assert err.value.reason == "not allowed"
    assert ends == [] and flow.method_outputs == []


def test_failure_fires_execution_end_once_and_reraises() -> None:
    seen: list[Any] = []

    @on(InterceptionPoint.EXECUTION_END)
    def capture(ctx: Any) -> None:
        seen.append(ctx)

    with pytest.raises(RuntimeError, match="flow boom"):
        FailingFlow().kickoff()
    assert len(seen) == 1
    assert seen[0].status == "failed" and isinstance(seen[0].error, RuntimeError) and seen[0].output is None


def test_reentrant_kickoff_pairs_ends_per_invocation() -> None:
    seen: list[tuple[str, str | None]] = []

    @on(InterceptionPoint.EXECUTION_START)
    def capture_start(ctx: Any) -> None:
        seen.append(("start", None))

    @on(InterceptionPoint.EXECUTION_END)
    def capture_end(ctx: Any) -> None:
        seen.append(("end", ctx.status))

    with pytest.raises(RuntimeError, match="outer boom"):
        ReentrantFailingFlow().kickoff()
    assert seen == [("start", None), ("start", None), ("end", "completed"), ("end", "failed")]


def test_aborting_end_hook_fires_once() -> None:
    calls: list[str] = []

    @on(InterceptionPoint.EXECUTION_END)
    def abort_end(ctx: Any) -> None:
        calls.append(ctx.status)
        raise HookAborted(reason="no")

    with pytest.raises(HookAborted):
        SimpleFlow().kickoff()
    assert calls == ["completed"]


def test_a_paused_run_ends_when_its_resume_completes(tmp_path: Any) -> None:
    fired: list[str] = []
    for point in (InterceptionPoint.EXECUTION_START, InterceptionPoint.OUTPUT, InterceptionPoint.EXECUTION_END):
        @on(point)
        def probe(ctx: Any, _point: InterceptionPoint = point) -> None:
            fired.append(_point.value)

    class Asking(Flow):
        input_provider = PersistedInputProvider()

        @start()
        def begin(self) -> str:
            return f"hello {self.ask('name?')}"

    store = SQLiteFlowPersistence(tmp_path / "flows.db")
    pending = Asking(persistence=store, checkpoint=True).kickoff()
    assert fired == ["execution_start"]
    assert Asking.resume(pending.run_id, "Ada", persistence=store) == "hello Ada"
    assert fired == ["execution_start", "output", "execution_end"]
