"""Nasty text (quotes, <, >, &, backslashes, newlines, unicode, control characters) in names,
labels, arguments and errors: valid DOT that the real `dot` renders to well-formed SVG with
the text intact, and valid Mermaid."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from _dot_read import label_text, node_attrs
from _mermaid_check import check_mermaid

from crewgraph.export import render_dot
from crewgraph.graph import RunGraph, RunRecord

NASTY = 'Say "hi" <b>&</b> {x}[y]|z|`t`#35;%% a\\N\nb\t日本語🚀\x07'
NODE_ID = 'step "one":x\\y <z>'


def nasty_run() -> RunGraph:
    import networkx as nx  # here, not at module level: collecting the suite then skips networkx

    graph = nx.DiGraph()

    def add(node_id: str, kind: str, label: str, **fields: object) -> None:
        graph.add_node(node_id, record=RunRecord(node_id=node_id, kind=kind, label=label, **fields))  # type: ignore[arg-type]

    add(NODE_ID, "agent_step", NASTY, status="failed", error=NASTY)
    add("call", "tool", "x()", status="completed", parent=NODE_ID, info={"tool": NASTY, "args": {"query": NASTY}})
    add("call2", "tool", "x()", status="completed", parent=NODE_ID, info={"tool": NASTY, "args": {"query": "b"}})
    add("end", "guardrail", "end", status="pending")
    graph.add_edge(NODE_ID, "end", kind="route", label=NASTY)
    return RunGraph(run_id="r-1", name=NASTY, graph=graph, status="failed", error=NASTY)


def test_dot_attributes_keep_the_text() -> None:
    dot = nasty_run().to_dot()
    step = node_attrs(dot, NODE_ID)
    shown = " ".join(label_text(step).split())
    assert 'Say "hi" <b>&</b> {x}[y]|z|`t`#35;%% a\\N b 日本語🚀' in shown  # HTML-escaped, decoded back
    assert "\x07" not in dot  # control characters dropped
    assert "<b>" not in step["label"] and "&lt;b&gt;" in step["label"]
    assert step["id"] == NODE_ID.replace("\\", "\\\\")  # escString: a literal backslash
    call = label_text(node_attrs(dot, "call"))
    assert call.startswith('Say "hi" <b>&</b> {x}[y]|z|`t… ×2')  # collapsed, tool name shortened


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` not installed")
def test_real_dot_renders_well_formed_svg_with_the_text(tmp_path: Path) -> None:
    svg_path = render_dot(nasty_run().to_dot(), tmp_path / "nasty.svg")
    root = ET.parse(svg_path).getroot()  # well-formed XML
    ns = {"svg": "http://www.w3.org/2000/svg"}
    texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert 'Say "hi" <b>&</b> {x}[y]|z|`t`#35;%% a\\N' in texts and "日本語🚀" in texts
    ids = {g.get("id") for g in root.iterfind(".//svg:g[@class='node']", ns)}
    assert NODE_ID in ids and "call" in ids and "end" in ids  # SVG ids are the node ids
    titles = {t.text for t in root.iterfind(".//svg:g[@class='node']/svg:title", ns)}
    assert NODE_ID in titles
    tooltips = [a.get("{http://www.w3.org/1999/xlink}title") or "" for a in root.iter("{http://www.w3.org/2000/svg}a")]
    assert any('Say "hi" <b>&</b>' in t and "a\\N\nb" in t for t in tooltips)  # a real line break


def test_mermaid_escapes_everything() -> None:
    text = nasty_run().to_mermaid()
    chart = check_mermaid(text)
    labels = " ".join(" ".join(chart.nodes.values()).split())
    assert 'Say "hi" <b>&</b> {x}[y]|z|`t`#35;%% a\\N b 日本語🚀' in labels
    assert "n_end" in chart.nodes  # "end" is a Mermaid keyword: prefixed
    assert any(label and 'Say "hi" <b>&</b>' in label for *_, label in chart.edges)
    assert "\x07" not in text
