"""Routers, labels, loops, conditional starts, and_/or_ semantics."""

from __future__ import annotations

import enum
from typing import Literal

import pytest

from crewgraph.errors import LoopGuardError
from crewgraph.flow import Flow, and_, listen, or_, router, start


def test_label_listeners_receive_the_routers_trigger_output() -> None:
    class F(Flow):
        @start()
        def begin(self) -> int:
            return 7

        @router(begin)
        def decide(self, n: int) -> str:
            return "odd" if n % 2 else "even"

        @listen("odd")
        def on_odd(self, n: int) -> str:
            return f"odd {n}"

        @listen("even")
        def on_even(self, n: int) -> str:
            return f"even {n}"

    flow = F()
    assert flow.kickoff() == "odd 7"
    assert flow.method_outputs == [7, "odd", "odd 7"]


def test_listening_to_a_router_by_name_gets_its_label() -> None:
    class F(Flow):
        @start()
        def begin(self) -> int:
            return 1

        @router(begin)
        def decide(self) -> Literal["a"]:
            return "a"

        @listen(decide)
        def after(self, label: str) -> str:
            return f"router said {label}"

        @listen("a")
        def on_a(self) -> None:
            return None

    flow = F()
    flow.kickoff()
    assert "router said a" in flow.method_outputs


def test_loop_through_a_router_with_or_rearm() -> None:
    """or_(begin, "again") fires once for begin and again on each loop-back label."""

    class F(Flow[dict]):
        @start()
        def begin(self) -> int:
            self.state["trace"] = ["begin"]
            return 0

        @listen(or_(begin, "again"))
        def work(self, _: int) -> int:
            self.state["n"] = self.state.get("n", 0) + 1
            self.state["trace"].append("work")
            return self.state["n"]

        @router(work)
        def check(self, n: int) -> str:
            return "again" if n < 3 else "done"

        @listen("done")
        async def finish(self, n: int) -> str:
            return f"finished after {n}"

    flow = F()
    assert flow.kickoff() == "finished after 3"
    assert flow.state["trace"] == ["begin", "work", "work", "work"]


def test_or_of_methods_fires_once_on_the_first() -> None:
    class F(Flow):
        @start()
        def a(self) -> str:
            return "A"

        @start()
        def b(self) -> str:
            return "B"

        @listen(or_(a, b))
        def either(self, value: str) -> str:
            return f"either({value})"

    flow = F()
    flow.kickoff()
    assert [o for o in flow.method_outputs if str(o).startswith("either")] in (["either(A)"], ["either(B)"])


def test_and_waits_for_all_and_gets_the_last_arrival() -> None:
    order: list[str] = []

    class F(Flow):
        @start()
        def a(self) -> str:
            order.append("a")
            return "A"

        @listen(a)
        def b(self, _: str) -> str:
            order.append("b")
            return "B"

        @listen(b)
        def c(self, _: str) -> str:
            order.append("c")
            return "C"

        @listen(and_(a, c))
        def both(self, last: str) -> str:
            order.append("both")
            return f"both after {last}"

    assert F().kickoff() == "both after C"
    assert order == ["a", "b", "c", "both"]


def test_nested_conditions() -> None:
    class F(Flow):
        @start()
        def a(self) -> str:
            return "A"

        @start()
        def b(self) -> str:
            return "B"

        @listen(a)
        def c(self, _: str) -> str:
            return "C"

        @listen(and_(c, or_(a, b)))
        def done(self) -> str:
            return "done"

    flow = F()
    assert flow.kickoff() == "done"
    assert flow.method_outputs.count("done") == 1


def test_conditional_start_loops_back_to_the_beginning() -> None:
    class F(Flow[dict]):
        @start("retry")
        def attempt(self) -> int:
            self.state["tries"] = self.state.get("tries", 0) + 1
            return self.state["tries"]

        @router(attempt)
        def check(self, tries: int) -> str:
            return "retry" if tries < 4 else "ok"

        @listen("ok")
        def done(self, tries: int) -> str:
            return f"ok after {tries}"

    flow = F()
    assert flow.kickoff() == "ok after 4"


class Route(enum.StrEnum):
    YES = "yes"
    NO = "no"


def test_enum_labels_and_label_from_several_routers() -> None:
    class F(Flow):
        @start()
        def a(self) -> int:
            return 1

        @start()
        def b(self) -> int:
            return 2

        @router(a)
        def ra(self) -> Route:
            return Route.YES

        @router(b)
        def rb(self) -> Route:
            return Route.YES

        @listen(and_("yes", a))
        def once_yes(self) -> str:
            return "yes seen"

        @listen("no")
        def never(self) -> str:
            return "no"

    flow = F()
    flow.kickoff()
    graph = flow.compile().graph
    assert "label:yes" in graph  # "yes" comes from two routers: one arrival point
    assert flow.method_outputs.count("yes seen") == 1
    assert "no" not in flow.method_outputs


def test_router_returning_none_stops_there() -> None:
    class F(Flow):
        @start()
        def a(self) -> int:
            return 1

        @router(a, labels=["go"])
        def r(self) -> None:
            return None

        @listen("go")
        def after(self) -> str:
            return "went"

    flow = F()
    assert flow.kickoff() is None
    assert flow.method_outputs == [1, None]


def test_loop_guard_class_attribute_and_kickoff_argument() -> None:
    class Endless(Flow):
        max_method_calls = 5

        @start()
        def a(self) -> int:
            return 1

        @listen(or_(a, "again"))
        def work(self) -> int:
            return 2

        @router(work)
        def r(self) -> Literal["again"]:
            return "again"

    with pytest.raises(LoopGuardError, match=r"method 'work' would run 6 times, more than max_method_calls=5"):
        Endless().kickoff()
    with pytest.raises(LoopGuardError, match="max_method_calls=3"):
        Endless().kickoff(max_method_calls=3)


def test_loop_guard_can_be_lifted_for_long_loops() -> None:
    class Count(Flow[dict]):
        max_method_calls = None

        @start()
        def begin(self) -> None:
            self.state["n"] = 0

        @listen(or_(begin, "more"))
        def step(self) -> int:
            self.state["n"] += 1
            return int(self.state["n"])

        @router(step)
        def r(self, n: int) -> str:
            return "more" if n < 250 else "stop"

        @listen("stop")
        def end(self, n: int) -> int:
            return n

    assert Count().kickoff() == 250


def test_bare_start_decorator() -> None:
    class F(Flow):
        @start
        def a(self) -> str:
            return "a"

        @listen(a)
        def b(self, v: str) -> str:
            return v + "b"

    assert F().kickoff() == "ab"


def test_a_base_without_starts_is_checked_when_used_not_when_defined() -> None:
    from crewgraph.errors import CompileError

    class Handlers(Flow):  # listeners only: subclasses add the start and the router
        @listen("escalate")
        def page(self, alert: str) -> str:
            return f"paged: {alert}"

    class Alerts(Handlers):
        @start()
        def read(self) -> str:
            return "disk 97%"

        @router(read)
        def triage(self, alert: str) -> Literal["escalate"]:
            return "escalate"

    assert Alerts().kickoff() == "paged: disk 97%"
    with pytest.raises(CompileError, match="no @start\\(\\) method") as err:
        Handlers().kickoff()
    assert "'page'" not in str(err.value)  # a label no router returns is only a warning
