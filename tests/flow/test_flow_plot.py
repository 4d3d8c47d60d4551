"""Pictures of flows: DOT text (routers as diamonds, labels on edges) and Graphviz files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from crewgraph.flow import Flow, and_, listen, or_, router, start


class Review(Flow):
    @start()
    def draft(self) -> str:
        return "text"

    @start()
    def facts(self) -> str:
        return "facts"

    @listen(and_(draft, facts))
    def check(self) -> str:
        return "checked"

    @router(check)
    def verdict(self) -> str:
        if self.state.get("strict"):
            return "revise"
        return "publish"

    @listen(or_("revise", draft))
    def rewrite(self) -> str:
        return "revised"

    @listen("publish")
    def release(self) -> str:
        return "published"


def test_to_dot_shows_kinds_and_labels() -> None:
    dot = Review().to_dot()
    assert "\tverdict [" in dot and "label=<verdict> shape=diamond" in dot
    assert '\t"check.and" [' in dot and "label=<and> shape=circle" in dot
    assert '\tdraft -> "check.and" [label=and]\n' in dot
    assert '\t"rewrite.or" -> rewrite' in dot
    assert "label=publish" in dot and "label=revise" in dot
    assert Review().to_dot() == dot  # stable text


def test_plot_writes_dot_without_graphviz(tmp_path: Path) -> None:
    out = Review().plot(tmp_path / "review.dot")
    assert out == tmp_path / "review.dot"
    assert out.read_text().startswith("digraph Review {")


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
def test_plot_renders_svg(tmp_path: Path) -> None:
    out = Review().plot(tmp_path / "review")
    assert out.suffix == ".svg"
    svg = out.read_text()
    assert "<svg" in svg and "verdict" in svg and "publish" in svg
    assert "<html" not in svg.lower()


def test_run_graph_of_the_last_kickoff(tmp_path: Path) -> None:
    flow = Review()
    assert flow.run_graph is None
    flow.kickoff()
    run = flow.run_graph
    assert run is not None and run.run_id == flow.run_id
    assert run.record("check").status == "completed" and run.record("check").executions == 1
    assert run.record("rewrite").executions == 1 and run.record("release").status == "completed"
    assert "verdict" in run.to_dot()
