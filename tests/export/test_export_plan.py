"""plan_to_dot / plan_to_json on a hand-built ExecutionGraph."""

from __future__ import annotations

import json

import pytest
from _dot_read import edge_attrs, label_text, node_attrs
from _export_graphs import make_plan

from crewgraph.export import plan_to_dot, plan_to_json


@pytest.mark.parametrize(
    ("node_id", "shape"),
    [
        ("research", "box"),
        ("research:guardrail", "hexagon"),
        ("research:convert", "parallelogram"),
        ("tool:search", "ellipse"),
        ("recall", "cylinder"),
        ("save", "cylinder"),
        ("route", "diamond"),
        ("join", "circle"),
        ("manager", "doubleoctagon"),
    ],
)
def test_shape_by_kind(node_id: str, shape: str) -> None:
    attrs = node_attrs(plan_to_dot(make_plan()), node_id)
    assert attrs["shape"] == shape and attrs["style"] == "filled" and attrs["fillcolor"].startswith("#")
    assert attrs["id"] == node_id  # the SVG element's id is the node id


def test_flow_method_is_rounded_box() -> None:
    attrs = node_attrs(plan_to_dot(make_plan()), "start")
    assert attrs["shape"] == "box" and attrs["style"] == "rounded,filled"


def test_fill_colour_differs_by_kind() -> None:
    dot = plan_to_dot(make_plan())
    fill = {n: node_attrs(dot, n)["fillcolor"] for n in ("research", "research:guardrail", "recall", "route")}
    assert len(set(fill.values())) == 4
    assert fill["research"] == node_attrs(dot, "write")["fillcolor"]


def test_edges() -> None:
    dot = plan_to_dot(make_plan())
    may_call = edge_attrs(dot, "research", "tool:search")
    assert may_call is not None and may_call["style"] == "dashed" and may_call["label"] == "may call"
    assert (edge_attrs(dot, "research:convert", "write") or {})["label"] == "context"
    assert (edge_attrs(dot, "research", "research:guardrail") or {})["label"] == "guardrail"
    assert (edge_attrs(dot, "route", "join") or {})["label"] == "ok path"
    assert (edge_attrs(dot, "join", "manager") or {})["label"] == "and"
    assert edge_attrs(dot, "research:convert", "save") == {}  # plain order edge
    # only may-call edges are dashed
    assert dot.count("style=dashed") == 1


def test_labels_escaped_wrapped_truncated() -> None:
    dot = plan_to_dot(make_plan())
    assert dot.startswith('digraph "Research \\"crew\\"" {')
    label = label_text(node_attrs(dot, "research"))
    assert label.startswith('Research the "latest"')
    assert "\n" in label, "long labels are wrapped"
    plain = label.replace("\n", " ")
    assert plain.endswith("…") and len(plain) <= 62
    assert "technical audience" not in plain


def test_show_tools_false_hides_tools_and_may_call_edges() -> None:
    dot = plan_to_dot(make_plan(), show_tools=False)
    assert "tool:search" not in dot and "may call" not in dot
    assert node_attrs(dot, "research")


def test_options_and_determinism() -> None:
    assert plan_to_dot(make_plan()) == plan_to_dot(make_plan())
    assert "rankdir=LR" in plan_to_dot(make_plan(), rankdir="lr")
    assert 'label="My title"' in plan_to_dot(make_plan(), title="My title")
    with pytest.raises(ValueError, match="rankdir"):
        plan_to_dot(make_plan(), rankdir="sideways")
    legend = plan_to_dot(make_plan(), legend=True)
    assert "cluster_legend" in legend and node_attrs(legend, "__legend_router")["shape"] == "diamond"
    assert "cluster_legend" not in plan_to_dot(make_plan())


def test_execution_graph_methods_delegate() -> None:
    plan = make_plan()
    assert plan.to_dot(rankdir="LR") == plan_to_dot(plan, rankdir="LR")
    assert plan.to_json() == plan_to_json(plan)


def test_plan_to_json() -> None:
    data = plan_to_json(make_plan())
    json.dumps(data)  # serialisable, including the set in describe() and tuple in meta
    assert data["directed"] is True and data["multigraph"] is False
    assert data["graph"] == {
        "name": 'Research "crew"',
        "meta": {"final": "write", "order": ["research", "write"]},
    }
    nodes = {n["id"]: n for n in data["nodes"]}
    assert [n["id"] for n in data["nodes"]][:3] == ["recall", "research", "tool:search"]
    assert nodes["research"]["kind"] == "agent_step" and nodes["research"]["role"] == "Researcher"
    assert nodes["research"]["tools"] == ["search"]
    assert nodes["tool:search"]["plan_only"] is True and nodes["write"]["plan_only"] is False
    edges = {(e["source"], e["target"]): e for e in data["edges"]}
    assert edges[("research", "tool:search")]["kind"] == "may_call"
    assert edges[("route", "join")] == {
        "source": "route",
        "target": "join",
        "kind": "route",
        "label": "ok path",
    }
    assert len(data["edges"]) == 9
