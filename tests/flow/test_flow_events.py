"""Events of a kickoff (flow, methods, nodes) with one run id; failures; the loop guard."""

from __future__ import annotations

from typing import Any

import pytest

from crewgraph.errors import LoopGuardError
from crewgraph.events import FlowFinishedEvent, FlowStartedEvent
from crewgraph.events.flow_events import (
    MethodExecutionFailedEvent,
    MethodExecutionFinishedEvent,
    MethodExecutionStartedEvent,
)
from crewgraph.events.node_events import NodeFailedEvent, NodeFinishedEvent, NodeStartedEvent
from crewgraph.flow import Flow, listen, or_, router, start


class Simple(Flow):
    @start()
    def begin(self) -> str:
        return "x"

    @router(begin)
    def decide(self) -> str:
        return "go"

    @listen("go")
    def end(self, v: str) -> str:
        return v * 2


def test_flow_method_and_node_events_share_the_run_id(captured: Any) -> None:
    flow = Simple()
    assert flow.kickoff(inputs={"k": 1}) == "xx"
    started = captured.of(FlowStartedEvent)
    finished = captured.of(FlowFinishedEvent)
    assert len(started) == len(finished) == 1
    assert started[0].flow_name == "Simple" and started[0].inputs == {"k": 1}
    assert finished[0].result == "xx"
    assert [e.method_name for e in captured.of(MethodExecutionStartedEvent)] == ["begin", "decide", "end"]
    done = {e.method_name: e for e in captured.of(MethodExecutionFinishedEvent)}
    assert done["decide"].result == "go" and done["end"].result == "xx"
    assert {e.node_id for e in captured.of(NodeStartedEvent)} == {"begin", "decide", "end"}
    assert len(captured.of(NodeFinishedEvent)) == 3
    created = [e for e in captured.events if e.type == "flow_created"]  # built with the flow, before any run
    assert len(created) == 1 and created[0].run_id is None and captured.types()[0] == "flow_created"
    assert {e.run_id for e in captured.events if e not in created} == {flow.run_id}
    assert captured.types()[1] == "flow_started" and captured.types()[-1] == "flow_finished"
    assert all(src is flow for src in captured.sources)


def test_a_failing_method_raises_its_own_exception(captured: Any) -> None:
    class Boom(Flow):
        @start()
        def begin(self) -> int:
            return 1

        @listen(begin)
        def explode(self) -> None:
            raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input") as info:
        Boom().kickoff()
    assert any("method 'explode' of flow 'Boom'" in note for note in info.value.__notes__)
    failed = captured.of(MethodExecutionFailedEvent)
    assert [(e.method_name, e.error) for e in failed] == [("explode", "ValueError: bad input")]
    assert [e.node_id for e in captured.of(NodeFailedEvent)] == ["explode"]
    assert not captured.of(FlowFinishedEvent)


def test_loop_guard_names_the_loop(captured: Any) -> None:
    class Loop(Flow):
        @start()
        def a(self) -> None:
            return None

        @listen(or_(a, "again"))
        def b(self) -> None:
            return None

        @router(b)
        def r(self) -> str:
            return "again"

    with pytest.raises(LoopGuardError) as info:
        Loop().kickoff(max_method_calls=4)
    message = str(info.value)
    assert "'b' would run 5 times" in message and "'r' x4" in message
    assert "max_method_calls" in message


def test_no_events_are_built_without_listeners(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    original = MethodExecutionStartedEvent.__init__

    def spy(self: Any, **kw: Any) -> None:
        built.append(kw["method_name"])
        original(self, **kw)

    monkeypatch.setattr(MethodExecutionStartedEvent, "__init__", spy)
    from crewgraph.events.bus import crewgraph_event_bus

    with crewgraph_event_bus.scoped_handlers():
        assert Simple().kickoff() == "xx"
    assert built == []
