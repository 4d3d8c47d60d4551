"""run_to_dot / run_to_json on a hand-built RunGraph."""

from __future__ import annotations

import json

import pytest
from _dot_read import edge_attrs, label_text, node_attrs, node_ids
from _export_graphs import AgentStep, make_run

from crewgraph.export import run_to_dot, run_to_json
from crewgraph.export.run import format_duration
from crewgraph.export.styles import STATUS_COLOURS
from crewgraph.graph import RunGraph, RunRecord


@pytest.mark.parametrize(
    ("node_id", "status"),
    [
        ("research", "restored"),
        ("write", "completed"),
        ("write:call1", "completed"),
        ("write:call2", "failed"),
        ("publish", "failed"),
        ("review", "skipped"),
    ],
)
def test_fill_by_status(node_id: str, status: str) -> None:
    attrs = node_attrs(run_to_dot(make_run()), node_id)
    assert attrs["fillcolor"] == STATUS_COLOURS[status]


def test_status_palette() -> None:
    assert STATUS_COLOURS["completed"] != STATUS_COLOURS["failed"] != STATUS_COLOURS["restored"]
    assert STATUS_COLOURS["cancelled"] == STATUS_COLOURS["skipped"]
    assert STATUS_COLOURS["pending"] == "#ffffff"


def test_labels_show_what_happened() -> None:
    dot = run_to_dot(make_run())
    write = node_attrs(dot, "write")
    assert "2.3 s · 1234 tok · 1 retry" in label_text(write)
    publish = node_attrs(dot, "publish")
    assert 'error: LLMError: 500 "server exploded"' in label_text(publish) and "…" in label_text(publish)
    assert publish["penwidth"] == "2"
    assert "very long message" in publish["tooltip"]  # the full error is in the tooltip
    assert "(restored)" in label_text(node_attrs(dot, "research"))
    assert "(skipped)" in label_text(node_attrs(dot, "review"))
    assert node_attrs(dot, "review")["shape"] == "hexagon"
    assert "run 01234567 · failed" in dot


def test_spawned_tool_calls_joined_to_parent() -> None:
    """The step's calls sit in a row under it, in order: a bold "called" edge to the first
    (whether the runtime joined it by an edge or only its record names the parent), then
    call to call."""
    dot = run_to_dot(make_run())
    called = edge_attrs(dot, "write", "write:call1")
    assert called is not None and called["style"] == "bold" and called["label"] == "called"
    assert edge_attrs(dot, "write:call1", "write:call2") is not None
    assert edge_attrs(dot, "write", "write:call2") is None
    assert '{rank=same; "write:call1" "write:call2"}' in dot
    assert node_attrs(dot, "write:call1")["shape"] == "ellipse"


def test_templates_and_tools_visibility() -> None:
    run = make_run()
    assert "tool:search" not in node_ids(run_to_dot(run))
    shown = run_to_dot(run, show_templates=True)
    assert node_attrs(shown, "tool:search")["fillcolor"] == STATUS_COLOURS["pending"]
    assert "may call" in shown
    no_tools = run_to_dot(run, show_tools=False)
    assert "write:call" not in no_tools and "called" not in no_tools
    legend = run_to_dot(run, legend=True)
    assert "cluster_status" in legend and node_attrs(legend, "__status_restored")


def test_deterministic() -> None:
    assert run_to_dot(make_run()) == run_to_dot(make_run())


def test_run_to_json() -> None:
    data = run_to_json(make_run())
    json.dumps(data)
    assert (data["run_id"], data["status"], data["error"]) == (
        "0123456789abcdef",
        "failed",
        "node publish failed: LLMError",
    )
    nodes = {n["id"]: n for n in data["nodes"]}
    assert nodes["write"]["tokens"] == 1234 and nodes["write"]["retries"] == 1
    assert nodes["write:call2"]["parent"] == "write"
    edges = {(e["source"], e["target"]): e["kind"] for e in data["edges"]}
    assert edges[("write", "write:call1")] == "spawned"
    assert edges[("write", "write:call2")] == "spawned"
    assert edges[("research", "write")] == "context"
    totals = data["totals"]
    assert totals["tokens"] == 1234 and totals["retries"] == 1 and totals["nodes"] == 7
    assert totals["by_status"]["failed"] == 2
    assert make_run().to_json() == data


def test_node_without_record_is_pending() -> None:
    import networkx as nx  # here, not at module level: collecting the suite then skips networkx

    graph = nx.DiGraph()
    graph.add_node("a", node=AgentStep(id="a", label="late node"), kind="agent_step")
    run = RunGraph(run_id="r", name="n", graph=graph)
    dot = run_to_dot(run)
    assert "late node" in label_text(node_attrs(dot, "a"))
    assert run_to_json(run)["nodes"][0]["status"] == "pending"


@pytest.mark.parametrize(
    ("ms", "text"), [(850, "850 ms"), (1234, "1.2 s"), (59_900, "59.9 s"), (125_000, "2m 05s")]
)
def test_format_duration(ms: float, text: str) -> None:
    assert format_duration(ms) == text


def _with_handled_failure(error: str | None) -> RunGraph:
    """make_run() plus a tool call that failed under a warn policy (the node completed)."""
    run = make_run()
    info: dict[str, object] = {"tool": "lookup", "failed": True}
    if error is not None:
        info["error"] = error
    record = RunRecord(
        node_id="write:call3", kind="tool", label="lookup", status="completed", parent="write", info=info
    )
    run.graph.add_node("write:call3", record=record)
    return run


def test_handled_tool_failure_is_drawn_and_counted() -> None:
    """A failure the policy handled keeps status completed but must still stand out."""
    dot = run_to_dot(_with_handled_failure("Invalid arguments for tool 'lookup': field 'q' required"))
    attrs = node_attrs(dot, "write:call3")
    assert attrs["fillcolor"] == STATUS_COLOURS["completed"]  # it did complete
    assert attrs["style"] == "filled,dashed" and attrs["color"] == "#b02a37"
    assert "tool failure: Invalid arguments" in label_text(attrs)
    assert "(tool failure, handled)" in attrs["tooltip"]
    assert "tool failure" not in label_text(node_attrs(dot, "write:call1"))  # a plain success is unchanged
    assert run_to_json(_with_handled_failure(None))["totals"]["tool_failures"] == 1
    assert "(tool failure)" in label_text(node_attrs(run_to_dot(_with_handled_failure(None)), "write:call3"))
    assert run_to_json(make_run())["totals"]["tool_failures"] == 0
