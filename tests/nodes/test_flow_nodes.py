"""flow_method, router and join nodes run alone (crewgraph.testing.run_node)."""

from __future__ import annotations

import enum
import threading
from typing import Any

import pytest

from crewgraph.errors import LoopGuardError
from crewgraph.events.base import BaseEvent
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.events.flow_events import MethodExecutionFinishedEvent, MethodExecutionStartedEvent
from crewgraph.graph.run_state import RunState
from crewgraph.nodes.flow_method import FLOW_RUN_KEY, FlowMethodNode, FlowRunState, Routed
from crewgraph.nodes.join import PASS, JoinNode
from crewgraph.nodes.router import RouterNode, route_label
from crewgraph.testing import run_node


def test_sync_method_gets_its_trigger_output_in_a_worker_thread() -> None:
    seen: dict[str, Any] = {}

    def method(value: int) -> int:
        seen["thread"] = threading.current_thread()
        return value * 2

    node = FlowMethodNode(id="double", method="double", fn=method, takes_arg=True)
    result = run_node(node, upstream={"src": 21}, trigger="src")
    assert result.output == 42
    assert seen["thread"] is not threading.main_thread()
    assert node.describe()["method"] == "double" and node.kind == "flow_method"


def test_start_method_without_trigger_and_optional_parameter() -> None:
    calls: list[tuple[Any, ...]] = []

    async def opt(value: Any = "default") -> Any:
        calls.append((value,))
        return value

    def required(value: Any) -> Any:
        return value

    assert run_node(FlowMethodNode(id="o", method="o", fn=opt, is_async=True, takes_arg=True,
                                   arg_optional=True)).output == "default"
    assert run_node(FlowMethodNode(id="r", method="r", fn=required, takes_arg=True)).output is None
    assert run_node(FlowMethodNode(id="o2", method="o2", fn=opt, is_async=True, takes_arg=True,
                                   arg_optional=True), upstream={"t": 5}, trigger="t").output == 5


def test_router_output_and_payload_hand_on() -> None:
    router = RouterNode(id="r", method="r", fn=lambda v: "big" if v > 10 else "small", takes_arg=True,
                        labels=("big", "small"))
    result = run_node(router, upstream={"a": 50}, trigger="a")
    assert result.route == "big" and result.output == Routed("big", 50) and str(result.output) == "big"
    by_label = FlowMethodNode(id="l", method="l", fn=lambda v: v, takes_arg=True, label_preds=frozenset({"r"}))
    by_name = FlowMethodNode(id="n", method="n", fn=lambda v: v, takes_arg=True)
    assert run_node(by_label, upstream={"r": result.output}, trigger="r").output == 50
    assert run_node(by_name, upstream={"r": result.output}, trigger="r").output == "big"
    assert router.describe()["labels"] == ["big", "small"]


class Mode(enum.Enum):
    FAST = "fast"
    SLOW = 2


def test_route_label_normalisation() -> None:
    assert route_label("x") == "x"
    assert route_label(None) is None
    assert route_label(Mode.FAST) == "fast" and route_label(Mode.SLOW) == "SLOW"
    assert route_label(3) == "3"


def test_gated_or_join_fires_once_for_methods_and_again_for_labels() -> None:
    state = RunState()
    join = JoinNode(id="w.or", mode="or", listener="w", gated=True, rearm=frozenset({"r"}),
                    label_preds=frozenset({"r"}))
    first = run_node(join, upstream={"a": 1}, trigger="a", state=state)
    second = run_node(join, upstream={"b": 2}, trigger="b", state=state)
    loop = run_node(join, upstream={"r": Routed("again", 3)}, trigger="r", state=state)
    assert (first.route, first.output) == (PASS, 1)
    assert second.route is None and second.info == {"held": True}
    assert (loop.route, loop.output) == (PASS, 3)
    plain = JoinNode(id="x.and", mode="and")
    assert run_node(plain, upstream={"a": 1, "b": 2}, trigger="b").output == 2
    assert plain.display_label == "and"


def test_loop_guard_counts_per_method() -> None:
    state = RunState()
    state.extras[FLOW_RUN_KEY] = FlowRunState(flow_name="F", max_calls=2)
    node = FlowMethodNode(id="m", method="m", fn=lambda: 1)
    run_node(node, state=state)
    run_node(FlowMethodNode(id="o", method="o", fn=lambda: 1), state=state)
    run_node(node, state=state)
    with pytest.raises(LoopGuardError, match="method 'm' would run 3 times, more than max_method_calls=2"):
        run_node(node, state=state)


def test_method_events_when_someone_listens() -> None:
    got: list[BaseEvent] = []
    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.register_handler(MethodExecutionStartedEvent, lambda s, e: got.append(e))
        crewgraph_event_bus.register_handler(MethodExecutionFinishedEvent, lambda s, e: got.append(e))
        run_node(RouterNode(id="r", method="r", fn=lambda: "go", flow_name="Flo"))
    assert [(e.event_type, e.method_name, e.flow_name) for e in got] == [
        ("method_execution_started", "r", "Flo"), ("method_execution_finished", "r", "Flo"),
    ]
    assert got[1].result == "go" and got[1].node_id == "r" and got[1].node_kind == "router"  # type: ignore[attr-defined]
