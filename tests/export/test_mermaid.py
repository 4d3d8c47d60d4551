"""to_mermaid() on plans (crew and flow) and runs: valid structure, a subgraph per task."""

from __future__ import annotations

import pytest
from _big_crew import big_crew
from _export_graphs import make_plan, make_run
from _mermaid_check import check_mermaid

from crewgraph.export.mermaid import mermaid_id, mermaid_text
from crewgraph.flow import Flow, listen, or_, router, start


class Review(Flow[dict]):
    @start()
    def draft(self) -> str:
        return "d"

    @router(draft, emit=["ok", "redo"])
    def check(self) -> str:
        return "ok"

    @listen("ok")
    def publish(self) -> str:
        return "p"

    @listen(or_("redo", publish))
    def end(self) -> str:  # a Mermaid keyword as a method name
        return "e"


def test_crew_plan_has_a_subgraph_per_task() -> None:
    plan = big_crew(3).compile()
    chart = check_mermaid(plan.to_mermaid())
    assert chart.direction == "TB"
    assert list(chart.subgraph_titles.values()) == [f"Task: research step {i}\nAgent: Analyst {i}" for i in range(3)]
    for members in chart.subgraphs.values():
        assert len(members) == 4  # the step and the three tools it may call
    arrows = {arrow for _, arrow, _, _ in chart.edges}
    assert arrows == {"-->", "-.->"}  # context and may-call edges
    assert ("n_t1_research_step_0_agent", "-->", "n_t2_research_step_1_agent", "context") in chart.edges


def test_run_collapses_like_the_dot_drawing() -> None:
    run = big_crew(2).kickoff().graph  # type: ignore[union-attr]
    chart = check_mermaid(run.to_mermaid(rankdir="LR"))
    assert chart.direction == "LR"
    assert len(chart.subgraphs) == 2
    labels = list(chart.nodes.values())
    assert sum(label.startswith("search_web ×3") for label in labels) == 2
    assert ("n_t1_research_step_0_agent", "==>", "n_t1_research_step_0_agent_llm1", None) in chart.edges
    assert len(chart.nodes) == len(run.to_dot().split("shape=")) - 1  # same nodes as the DOT


def test_flow_plan() -> None:
    flow = Review()
    chart = check_mermaid(flow.to_mermaid())
    assert not chart.subgraphs  # flow methods belong to no task
    assert chart.nodes["n_check"] == "check" and chart.nodes["n_end"] == "end"
    assert any(label == "ok" for *_, label in chart.edges)  # route edges keep their label
    assert flow.to_mermaid() == flow.to_mermaid() == flow.compile().to_mermaid()


def test_hand_built_graphs() -> None:
    check_mermaid(make_plan().to_mermaid())
    run_chart = check_mermaid(make_run().to_mermaid())
    assert "n_write_call1" in run_chart.nodes and "n_tool_search" not in run_chart.nodes


def test_ids_and_text() -> None:
    taken: dict[str, str] = {}
    assert mermaid_id("a.b", taken) == "n_a_b"
    assert mermaid_id("a:b", taken) == "n_a_b_2"  # same spelling, different node
    assert mermaid_id("a.b", taken) == "n_a_b"  # stable for the same node
    assert mermaid_text('x "y" <z>\n& #1') == "x #34;y#34; #60;z#62;<br/>#38; #35;1"


@pytest.mark.parametrize("bad", ["sideways", "up"])
def test_rankdir_checked(bad: str) -> None:
    with pytest.raises(ValueError, match="rankdir"):
        make_plan().to_mermaid(rankdir=bad)
