"""PRE_STEP / POST_STEP around flow methods (``kind="flow_method"``), as CrewAI's own flow
tests exercise them, written as CrewAI code with crewgraph's paths."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph.events import MethodExecutionFinishedEvent, crewgraph_event_bus
from crewgraph.flow import Flow, listen, router, start
from crewgraph.hooks import HookAborted, InterceptionPoint, StepContext, clear_all_hooks, on


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
    def finish(self, value: Any) -> str:
        return f"finished after {value}"


class RoutingFlow(Flow):
    @start()
    def begin(self) -> str:
        return "draft"

    @router(begin)
    def decide(self) -> str:
        if self.state.get("approve"):
            return "accept"
        return "reject"

    @listen("accept")
    def accepted(self) -> str:
        return "accepted"

    @listen("reject")
    def rejected(self) -> str:
        return "rejected"


def test_pre_and_post_step_fire_per_method_in_order() -> None:
    seen: list[tuple[str, str | None, str | None, Any]] = []
    flows: list[Any] = []

    @on(InterceptionPoint.PRE_STEP)
    def pre(ctx: StepContext) -> None:
        seen.append(("pre", ctx.kind, ctx.step_name, dict(ctx.payload)))
        flows.append((ctx.flow, ctx.crew, ctx.task))

    @on(InterceptionPoint.POST_STEP)
    def post(ctx: StepContext) -> None:
        seen.append(("post", ctx.kind, ctx.step_name, ctx.payload))
        assert ctx.output == ctx.payload

    flow = SimpleFlow()
    assert flow.kickoff() == "finished after begin"
    assert seen == [
        ("pre", "flow_method", "begin", {}),
        ("post", "flow_method", "begin", "begin"),
        ("pre", "flow_method", "finish", {"_0": "begin"}),
        ("post", "flow_method", "finish", "finished after begin"),
    ]
    assert flows == [(flow, None, None), (flow, None, None)]


def test_post_step_rewrites_a_method_output_for_listeners_and_result() -> None:
    @on(InterceptionPoint.POST_STEP)
    def rewrite(ctx: StepContext) -> Any:
        return "rewritten" if ctx.step_name == "begin" else None

    flow = SimpleFlow()
    assert flow.kickoff() == "finished after rewritten"
    assert flow.method_outputs[0] == "rewritten"


def test_pre_step_edits_the_call_arguments() -> None:
    @on(InterceptionPoint.PRE_STEP)
    def edit(ctx: StepContext) -> None:
        if ctx.step_name == "finish":
            ctx.payload["_0"] = "edited"

    assert SimpleFlow().kickoff() == "finished after edited"


def test_post_step_on_a_router_changes_the_route() -> None:
    @on(InterceptionPoint.POST_STEP)
    def reroute(ctx: StepContext) -> Any:
        return "accept" if ctx.step_name == "decide" else None

    assert RoutingFlow().kickoff() == "accepted"
    clear_all_hooks()
    assert RoutingFlow().kickoff() == "rejected"


def test_method_finished_event_carries_the_rewritten_result() -> None:
    results: dict[str, Any] = {}

    @on(InterceptionPoint.POST_STEP)
    def rewrite(ctx: StepContext) -> Any:
        return "changed" if ctx.step_name == "begin" else None

    with crewgraph_event_bus.scoped_handlers():
        @crewgraph_event_bus.on(MethodExecutionFinishedEvent)
        def record(_: Any, event: MethodExecutionFinishedEvent) -> None:
            results[event.method_name] = event.result

        SimpleFlow().kickoff()
    assert results["begin"] == "changed"


def test_abort_at_pre_step_stops_before_the_method_runs() -> None:
    ran: list[str] = []

    class Guarded(Flow):
        @start()
        def begin(self) -> str:
            ran.append("begin")
            return "x"

        @listen(begin)
        def second(self) -> str:
            ran.append("second")
            return "y"

    @on(InterceptionPoint.PRE_STEP)
    def guard(ctx: StepContext) -> None:
        if ctx.step_name == "second":
            raise HookAborted(reason=f"cancelled before {ctx.step_name}")

    with pytest.raises(HookAborted) as exc:
        Guarded().kickoff()
    assert exc.value.reason == "cancelled before second"
    assert ran == ["begin"]


def test_pre_step_must_leave_a_dict() -> None:
    @on(InterceptionPoint.PRE_STEP)
    def bad(ctx: StepContext) -> Any:
        return "not a dict"

    with pytest.raises(TypeError, match="flow method 'begin' must leave the parameters a dict"):
        SimpleFlow().kickoff()
