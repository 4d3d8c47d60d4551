"""Two routing regressions (issue 23, item 6): an ``or_`` of ``and_`` groups fires its
listener once, and a ``@start()`` router's label listeners receive its return value."""

from __future__ import annotations

from crewgraph.flow import Flow, and_, listen, or_, router, start


def test_or_of_ands_fires_once_and_clears_the_other_partly_met_group() -> None:
    calls: list[str] = []

    class F(Flow):
        @start()
        def c(self) -> str:
            return "C"  # and_("c", "y") is partly met before the or_ fires

        @listen(c)
        def a(self) -> str:
            return "A"

        @listen(a)
        def x(self) -> str:
            return "X"

        @listen(or_(and_("a", "x"), and_("c", "y")))
        def joined(self, value: str) -> str:
            calls.append(value)
            return "joined"

        @router(joined)
        def after(self) -> str:
            return "y"  # would complete and_("c", "y") with the "c" from before the or_ fired

        @listen("y")
        def done(self) -> str:
            return "done"

    flow = F()
    assert flow.kickoff() == "done"
    assert calls == ["X"]
    assert flow.method_outputs.count("joined") == 1


def test_or_of_ands_fires_again_when_a_group_completes_anew() -> None:
    """Clearing is not a latch: in a loop, a group that completes again fires again."""
    calls: list[int] = []

    class F(Flow):
        @start()
        def a(self) -> str:
            return "A"

        @start()
        def x(self) -> str:
            return "X"

        @listen(or_(and_("a", "x"), and_("more", "again")))
        def joined(self) -> None:
            calls.append(len(calls))

        @router(joined)
        def first(self) -> str:
            return "more" if len(calls) < 3 else "stop"

        @router("more")
        def second(self) -> str:
            return "again"

        @listen("stop")
        def stopped(self) -> None:
            return None

    F().kickoff()
    assert calls == [0, 1, 2]


def test_start_router_label_listeners_receive_its_return_value() -> None:
    got: list[object] = []

    class F(Flow):
        @start()
        @router(emit=["go", "stop"])
        def decide(self) -> str:
            return "go"

        @listen("go")
        def on_go(self, value: object) -> str:
            got.append(value)
            return f"went with {value}"

        @listen("stop")
        def on_stop(self) -> None:
            return None

    assert F().kickoff() == "went with go"
    assert got == ["go"]


def test_triggered_router_still_hands_on_its_trigger_output() -> None:
    class F(Flow):
        @start()
        def begin(self) -> int:
            return 41

        @router(begin)
        def decide(self) -> str:
            return "go"

        @listen("go")
        def on_go(self, n: int) -> int:
            return n + 1

    assert F().kickoff() == 42
