"""build_flow_structure / visualize_flow_structure (crewgraph.flow), and HumanFeedbackCollapseError."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from crewgraph.flow import (
    Flow,
    and_,
    build_flow_structure,
    listen,
    or_,
    router,
    start,
    visualize_flow_structure,
)
from crewgraph.flow.flow_definition import FlowDefinition
from crewgraph.flow.human_feedback import HumanFeedbackCollapseError


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
        return "revise" if self.state.get("strict") else "publish"

    @listen(or_("publish", "revise"))
    def finish(self) -> str:
        return "done"


def test_structure_of_a_flow_class_and_instance() -> None:
    dag = build_flow_structure(Review)
    assert dag == build_flow_structure(Review())
    assert dag["start_methods"] == ["draft", "facts"] and dag["router_methods"] == ["verdict"]
    assert dag["nodes"]["check"]["condition_type"] == "AND"
    assert dag["nodes"]["check"]["trigger_methods"] == ["draft", "facts"]
    assert dag["nodes"]["verdict"]["is_router"] and "publish" in dag["nodes"]["verdict"]["router_paths"]
    assert dag["nodes"]["draft"]["source_code"].lstrip().startswith("@start()")
    edges = {(e["source"], e["target"], e["is_router_path"]) for e in dag["edges"]}
    assert {("draft", "check", False), ("facts", "check", False), ("check", "verdict", False),
            ("verdict", "finish", True)} <= edges


def test_structure_of_a_flow_definition() -> None:
    definition = FlowDefinition.from_declaration(contents={
        "schema": "crewai.flow/v1", "name": "Greeter",
        "methods": {
            "hello": {"start": True, "do": {"call": "expression", "expr": "'hi'"}},
            "shout": {"listen": "hello", "do": {"call": "expression", "expr": "outputs.hello + '!'"}},
        },
    })
    dag = build_flow_structure(definition)
    assert dag["start_methods"] == ["hello"]
    assert [(e["source"], e["target"]) for e in dag["edges"]] == [("hello", "shout")]
    with pytest.raises(TypeError, match="FlowDefinition"):
        build_flow_structure("Review")  # type: ignore[arg-type]


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz")
def test_visualize_writes_one_html_page(tmp_path: Path) -> None:
    path = visualize_flow_structure(build_flow_structure(Review), str(tmp_path / "flow_dag.html"), show=False)
    page = Path(path).read_text(encoding="utf-8")
    assert path.endswith("flow_dag.html") and "<svg" in page and "verdict" in page


def test_collapse_error_is_a_value_error() -> None:
    from crewgraph.flow._feedback_llm import classify

    with pytest.raises(HumanFeedbackCollapseError, match="no llm"):
        classify("looks good to me", ("approved", "rejected"), None, None, "review")
    assert issubclass(HumanFeedbackCollapseError, ValueError)
