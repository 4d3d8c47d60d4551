"""Flow compiler: graph shape (nodes, joins, edge kinds and routes), validation, label discovery."""

from __future__ import annotations

import enum
import warnings
from typing import Any, Literal

import pytest

from crewgraph.compiler.flow_compiler import (
    FlowCompileWarning,
    FlowMethodSpec,
    FlowSpec,
    TriggerSpec,
    compile_flow,
    validate_flow,
)
from crewgraph.errors import CompileError
from crewgraph.flow import Flow, and_, listen, or_, router, start
from crewgraph.flow._labels import router_labels
from crewgraph.nodes.join import PASS


def _fn(self: Any, *args: Any) -> None:
    return None


def m(name: str, *, on: str | TriggerSpec | None = None, start: bool = False,
      router: bool = False, labels: tuple[str, ...] = (), open_labels: bool = False) -> FlowMethodSpec:
    trigger = TriggerSpec("or", (on,)) if isinstance(on, str) else on
    return FlowMethodSpec(name=name, fn=_fn, start=start, router=router, trigger=trigger,
                          labels=labels, open_labels=open_labels)


def OR(*items: Any) -> TriggerSpec:
    return TriggerSpec("or", tuple(items))


def AND(*items: Any) -> TriggerSpec:
    return TriggerSpec("and", tuple(items))


def spec(*methods: FlowMethodSpec) -> FlowSpec:
    return FlowSpec(name="F", methods=methods)


def edges(graph: Any) -> dict[tuple[str, str], dict[str, Any]]:
    return {(u, v): dict(d) for u, v, d in graph.graph.edges(data=True)}


def test_nodes_edges_and_meta_of_a_routed_flow() -> None:
    g = compile_flow(spec(
        m("begin", start=True),
        m("decide", on="begin", router=True, labels=("ok", "retry")),
        m("finish", on="ok"),
        m("again", on="retry"),
    ))
    kinds = {n: d["kind"] for n, d in g.graph.nodes(data=True)}
    assert kinds == {"begin": "flow_method", "decide": "router", "finish": "flow_method", "again": "flow_method"}
    assert all(d["join"] == "any" for _, d in g.graph.nodes(data=True))
    e = edges(g)
    assert e[("begin", "decide")] == {"kind": "listen"}
    assert e[("decide", "finish")] == {"kind": "route", "route": "ok", "label": "ok"}
    assert e[("decide", "again")]["route"] == "retry"
    assert g.meta["entry"] == ["begin"] and g.meta["kind"] == "flow"
    assert g.meta["routers"] == {"decide": ["ok", "retry"]}
    assert g.node("finish").label_preds == frozenset({"decide"})  # type: ignore[attr-defined]
    assert g.node("decide").label_preds == frozenset()  # type: ignore[attr-defined]


def test_join_nodes_and_their_scheduler_modes() -> None:
    g = compile_flow(spec(
        m("a", start=True),
        m("b", start=True),
        m("r", on="a", router=True, labels=("again",)),
        m("both", on=AND("a", "b")),
        m("first", on=OR("a", "b")),
        m("loop", on=OR("b", "again")),
        m("nested", on=AND("a", OR("b", "first"))),
    ))
    nodes = g.graph.nodes
    assert nodes["both.and"]["kind"] == "join" and nodes["both.and"]["join"] == "all"
    assert nodes["first.or"]["join"] == "any_once"
    # 'loop' is in no loop: its or_ fires once, even though a label is among its inputs
    assert nodes["loop.or"]["join"] == "any_once" and not g.node("loop.or").gated  # type: ignore[attr-defined]
    e = edges(g)
    assert e[("a", "both.and")] == {"kind": "and"} and e[("b", "first.or")] == {"kind": "or"}
    assert e[("both.and", "both")] == {"kind": "listen"}
    assert e[("loop.or", "loop")] == {"kind": "listen"}
    assert e[("r", "loop.or")] == {"kind": "route", "route": "again", "label": "again"}
    assert e[("nested.and.or", "nested.and")] == {"kind": "and"}
    assert e[("b", "nested.and.or")] == {"kind": "or"}


def test_labels_from_several_routers_meet_in_a_label_join() -> None:
    g = compile_flow(spec(
        m("a", start=True),
        m("r1", on="a", router=True, labels=("x",)),
        m("r2", on="a", router=True, labels=("x",)),
        m("direct", on="x"),
        m("joined", on=AND("a", "x")),
    ))
    e = edges(g)
    assert e[("r1", "direct")]["route"] == e[("r2", "direct")]["route"] == "x"
    assert e[("r1", "label:x")]["route"] == "x" and e[("r2", "label:x")]["route"] == "x"
    assert e[("label:x", "joined.and")] == {"kind": "and"}
    assert g.graph.nodes["label:x"]["join"] == "any"


def test_open_routers_may_produce_any_label() -> None:
    g = compile_flow(spec(
        m("a", start=True),
        m("r", on="a", router=True, open_labels=True),
        m("b", on="whatever"),
    ))
    assert edges(g)[("r", "b")]["route"] == "whatever"
    assert g.meta["routers"] == {"r": None}


@pytest.mark.parametrize(
    ("methods", "fragment"),
    [
        ((m("a"),), "has no @start() method"),
        ((m("a", start=True), m("b", on="c"), m("c", on="b")), "form a cycle that passes through no router label"),
        ((m("a", start=True), m("b", on=AND("a", "c")), m("c", on="b")), "'c' can only run after 'b' itself"),
        ((m("a", start=True), m("r", on="a", router=True, labels=("x", "y")), m("b", on=AND("x", "y"))),
         "labels 'x', 'y' all come from router 'r'"),
        ((m("a", start=True), m("r", on="a", router=True, labels=("a",)), m("b", on="a")),
         "both a method name and a label router 'r' returns"),
    ],
)
def test_validation_errors_name_the_methods(methods: tuple[FlowMethodSpec, ...], fragment: str) -> None:
    with pytest.raises(CompileError) as info:
        validate_flow(spec(*methods))
    assert fragment in str(info.value)
    with pytest.raises(CompileError):
        compile_flow(spec(*methods))


def test_every_problem_is_listed_at_once() -> None:
    with pytest.raises(CompileError) as info:
        validate_flow(spec(
            m("a", start=True),
            m("b", on=TriggerSpec("or", ("x",), frozenset({"x"}))),
            m("c", on=TriggerSpec("or", ("y",), frozenset({"y"}))),
        ))
    assert len(info.value.problems) == 2 and info.value.task == "b"
    assert "2 problems found" in str(info.value)


def test_exclusive_labels_are_fine_inside_a_loop() -> None:
    validate_flow(spec(
        m("a", start=True),
        m("r", on=OR("a", "x"), router=True, labels=("x", "y")),
        m("b", on=AND("x", "y")),
    ))


def test_warnings_for_unheard_labels_and_dead_methods() -> None:
    found = validate_flow(spec(
        m("a", start=True),
        m("r", on="a", router=True, labels=("ok", "lost")),
        m("b", on="ok"),
        m("x", on="back"),
        m("r2", on="x", router=True, labels=("back",)),
    ))
    assert "router 'r' may return 'lost', but no method listens to it" in found
    assert any("'x', 'r2' can never run" in w for w in found)


def test_class_definition_validates_and_warns() -> None:
    def helper(self: Any) -> None:
        return None

    with pytest.raises(CompileError, match="'b' listens to 'helper', which is not a flow method"):
        class Bad(Flow):
            @start()
            def a(self) -> None:
                return None

            @listen(helper)
            def b(self) -> None:
                return None

    with pytest.warns(FlowCompileWarning, match="may return 'maybe'"):
        class Warned(Flow):
            @start()
            def a(self) -> None:
                return None

            @router(a)
            def r(self) -> Literal["yes", "maybe"]:
                return "yes"

            @listen("yes")
            def y(self) -> None:
                return None

    with pytest.raises(CompileError, match="several triggers"):
        class Stacked(Flow):
            @start()
            def a(self) -> None:
                return None

            @listen("x")
            @listen(a)
            def b(self) -> None:
                return None


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


def test_router_label_discovery() -> None:
    def literal(self: Any) -> Literal["a", "b"] | None: ...
    def enum_ann(self: Any) -> Color: ...
    def consts(self: Any, x: int) -> str:
        if x:
            return "one"
        def inner() -> str:
            return "not mine"
        return "two" if x > 1 else "three"
    def enum_return(self: Any) -> Any:
        return Color.BLUE
    def computed(self: Any) -> str:
        return "go" + "!"

    assert router_labels(literal, None) == (("a", "b"), False)
    assert router_labels(enum_ann, None) == (("red", "blue"), False)
    assert router_labels(consts, None) == (("one", "two", "three"), False)
    assert router_labels(enum_return, None) == (("blue",), False)
    assert router_labels(computed, None) == ((), True)
    assert router_labels(computed, ("go!",)) == (("go!",), False)


def test_a_real_flow_compiles_to_bound_nodes() -> None:
    class F(Flow):
        @start()
        def a(self) -> int:
            return 1

        @listen(or_(a, "again"))
        def b(self, n: int = 0) -> int:
            return n

        @router(b)
        def r(self) -> str:
            return "again" if False else "stop"

        @listen(and_(a, "stop"))
        def end(self) -> None:
            return None

    flow = F()
    g = flow.compile()
    assert g is flow.compile()  # built once per instance
    node = g.node("b")
    assert node.fn.__self__ is flow  # type: ignore[attr-defined]
    assert node.takes_arg and node.arg_optional  # type: ignore[attr-defined]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert F().to_dot() == flow.to_dot()


def test_an_or_re_arms_only_around_a_loop_through_its_listener() -> None:
    g = compile_flow(spec(
        m("begin", start=True),
        m("work", on=OR("begin", "back")),
        m("check", on="work", router=True, labels=("again", "done")),
        m("back", on="again"),
    ))
    join = g.node("work.or")
    assert g.graph.nodes["work.or"]["join"] == "any"
    assert join.gated and join.rearm == frozenset({"back"})  # type: ignore[attr-defined]
    assert edges(g)[("work.or", "work")] == {"kind": "listen", "route": PASS}


def test_a_routers_or_fires_on_every_arrival() -> None:
    g = compile_flow(spec(
        m("a", start=True),
        m("b", start=True),
        m("r", on=OR("a", "b"), router=True, labels=("x",)),
        m("x_heard", on="x"),
    ))
    assert g.graph.nodes["r.or"]["join"] == "any" and not g.node("r.or").gated  # type: ignore[attr-defined]


def test_labels_no_router_returns_are_warnings_and_wire_nothing() -> None:
    s = spec(
        m("a", start=True),
        m("ext", on="external"),
        m("b", on=OR("a", "never")),
        m("c", on=AND("a", "never")),
    )
    found = validate_flow(s)
    assert any("'ext' listens to 'external'" in w and "never fires" in w for w in found)
    assert any("'b' listens to 'never'" in w for w in found)
    g = compile_flow(s)
    e = edges(g)
    assert ("a", "b") in e and not any(v == "ext" for _, v in e) and not any(v == "c" for _, v in e)


def test_conditional_starts_are_entries_only_without_plain_starts() -> None:
    g = compile_flow(spec(
        m("a", start=True),
        m("r", on="a", router=True, labels=("go",)),
        m("cond", on="go", start=True),
    ))
    assert g.meta["entry"] == ["a"]
    only = compile_flow(spec(m("cond", on="go", start=True), m("r", on="cond", router=True, labels=("go", "end"))))
    assert only.meta["entry"] == ["cond"]


def test_flow_definition_errors_are_value_errors() -> None:
    with pytest.raises(ValueError, match="'b' -> 'b' form a cycle"):
        validate_flow(spec(m("a", start=True), m("b", on="b")))
