"""Regression tests: flows behave as CrewAI's docs describe (issue 11's routing fixes)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from pydantic import BaseModel

from crewgraph.compiler.flow_compiler import FlowCompileWarning
from crewgraph.errors import LoopGuardError, RouterLabelError
from crewgraph.events.flow_events import MethodExecutionFinishedEvent, MethodExecutionStartedEvent
from crewgraph.flow import Flow, listen, or_, router, start
from crewgraph.flow.persistence import FlowPersistence, persist

pytestmark = pytest.mark.filterwarnings("ignore::crewgraph.compiler.flow_compiler.FlowCompileWarning")


def test_listeners_on_labels_no_router_returns_are_valid() -> None:
    with pytest.warns(FlowCompileWarning, match="'ext' listens to 'external'"):
        class F(Flow):
            @start()
            def a(self) -> int:
                return 1

            @listen("external")
            def ext(self) -> str:
                return "never"

            @listen(or_(a, "never"))
            def b(self, n: int) -> str:
                return f"b{n}"

    flow = F()
    assert flow.kickoff() == "b1"
    assert flow.method_outputs == [1, "b1"]


def test_routers_returning_computed_labels_still_reach_their_listeners() -> None:
    class F(Flow):
        @start()
        def a(self) -> str:
            return "dyn"

        @router(a)
        def pick(self, prefix: str) -> str:
            return prefix + "amic"

        @listen("dynamic")
        def heard(self) -> str:
            return "heard"

    assert F().kickoff() == "heard"


def test_a_conditional_start_runs_only_when_its_label_fires() -> None:
    runs: list[str] = []

    class F(Flow):
        @start()
        def a(self) -> str:
            runs.append("a")
            return "a"

        @router(a)
        def r(self) -> str:
            return "go"

        @start("go")
        def cond(self) -> str:
            runs.append("cond")
            return "cond"

    assert F().kickoff() == "cond"
    assert runs == ["a", "cond"]


def test_a_loop_closed_through_a_listener_name_runs_each_pass() -> None:
    class F(Flow[dict]):
        @start()
        def begin(self) -> int:
            self.state["n"] = 0
            return 0

        @router(or_(begin, "loop_back"))
        def check(self) -> str:
            self.state["n"] += 1
            return "done" if self.state["n"] >= 3 else "again"

        @listen("again")
        def loop_back(self) -> str:
            return "looped"

        @listen("done")
        def finish(self) -> int:
            return int(self.state["n"])

    flow = F()
    assert flow.kickoff() == 3
    assert flow.method_outputs == [0, "again", "looped", "again", "looped", "done", 3]

    class Endless(F):
        @router(or_("begin", "loop_back"))
        def check(self) -> str:
            return "again"

    with pytest.raises(LoopGuardError, match="max_method_calls=5"):
        Endless().kickoff(max_method_calls=5)


def test_a_plain_listener_in_a_loop_closed_through_a_method_name_runs_each_pass() -> None:
    class F(Flow[dict]):
        @start()
        def begin(self) -> int:
            return 0

        @listen(or_(begin, "retry"))
        def work(self) -> int:
            self.state["n"] = self.state.get("n", 0) + 1
            return int(self.state["n"])

        @router(work)
        def check(self, n: int) -> str:
            return "again" if n < 3 else "done"

        @listen("again")
        def retry(self) -> None:
            return None

    flow = F()
    assert flow.kickoff() == "done"
    assert flow.state["n"] == 3 and flow.method_outputs.count(None) == 2


def test_or_fires_once_per_trigger_event_when_chained_routers_emit_both() -> None:
    class F(Flow):
        @start()
        def a(self) -> int:
            return 1

        @router(a)
        def r1(self) -> str:
            return "A"

        @router("A")
        def r2(self) -> str:
            return "B"

        @listen(or_("A", "B"))
        def either(self) -> str:
            return "either"

    flow = F()
    flow.kickoff()
    assert flow.method_outputs.count("either") == 1


def test_router_emit_declares_labels_and_rejects_others() -> None:
    class F(Flow[dict]):
        @start()
        def a(self) -> int:
            return 1

        @router(a, emit=["approved", "rejected"])
        def review(self) -> str:
            return str(self.state.get("verdict", "approved"))

        @listen("approved")
        def ok(self) -> str:
            return "ok"

        @listen("rejected")
        def no(self) -> str:
            return "no"

    assert F().kickoff() == "ok"
    assert F().kickoff(inputs={"verdict": "rejected"}) == "no"
    with pytest.raises(RouterLabelError, match="router 'review' of flow 'F' returned 'maybe'") as err:
        F().kickoff(inputs={"verdict": "maybe"})
    assert isinstance(err.value, ValueError) and "'approved', 'rejected'" in str(err.value)
    with pytest.raises(ValueError, match=r"emit=\[...\] or labels"):
        router("x", emit=["a"], labels=["a"])


def test_an_invalid_self_listening_flow_is_a_value_error_at_class_definition() -> None:
    with pytest.raises(ValueError, match="'again' -> 'again' form a cycle"):
        class F(Flow):
            @start()
            def a(self) -> int:
                return 1

            @listen("again")
            def again(self) -> int:
                return 2


def test_memory_is_a_lazy_default_and_none_turns_it_off() -> None:
    class F(Flow):
        @start()
        def a(self) -> int:
            return 1

    from crewgraph.memory import Memory

    flow = F()
    assert "_memory_obj" not in flow.__dict__  # nothing built until first use
    assert isinstance(flow.memory, Memory) and flow.memory is flow.memory
    assert flow.memory.root_scope == "/flow/F"  # CrewAI's root scope for a flow's memory
    off = F(memory=None)
    assert off.memory is None
    for call in (lambda: off.remember("x"), lambda: off.recall("x"), lambda: off.extract_memories("x")):
        with pytest.raises(ValueError, match="memory=None"):
            call()


def test_method_events_carry_state_and_params(captured: Any) -> None:
    class S(BaseModel):
        n: int = 0

    class F(Flow[S]):
        @start()
        def a(self) -> int:
            self.state.n = 1
            return 10

        @listen(a)
        def b(self, value: int) -> int:
            self.state.n = 2
            return value + 1

    F().kickoff()
    started = {e.method_name: e for e in captured.of(MethodExecutionStartedEvent)}
    finished = {e.method_name: e for e in captured.of(MethodExecutionFinishedEvent)}
    assert started["a"].params == {} and started["b"].params == {"_0": 10}
    # a dict snapshot of the state, as CrewAI's events carry it (not the live model)
    assert isinstance(started["a"].state, dict)
    assert started["a"].state["n"] == 0 and finished["a"].state["n"] == 1
    assert started["b"].state["n"] == 1 and finished["b"].state["n"] == 2
    assert finished["b"].result == 11


def test_flow_persistence_is_subclassable_with_pydantic_fields() -> None:
    class InMemory(FlowPersistence):
        label: str = "mem"
        rows: dict[str, list[dict[str, Any]]] = {}

        def init_db(self) -> None:
            return None

        def save_state(self, flow_uuid: str, method_name: str, state_data: Any) -> None:
            data = state_data.model_dump() if isinstance(state_data, BaseModel) else dict(state_data)
            self.rows.setdefault(flow_uuid, []).append(data)

        def load_state(self, flow_uuid: str) -> dict[str, Any] | None:
            got = self.rows.get(flow_uuid)
            return got[-1] if got else None

    store = InMemory(label="x")
    assert store.label == "x" and store.model_dump()["label"] == "x"

    @persist(store)
    class F(Flow[dict]):
        @start()
        def a(self) -> int:
            self.state["n"] = self.state.get("n", 0) + 1
            return int(self.state["n"])

    flow = F()
    assert flow.kickoff() == 1
    assert F().kickoff(inputs={"id": flow.flow_id}) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        InMemory()  # fields only: no warnings
