"""Colours of the executed graph as docs/checkpoints.md ("The executed graph") documents them:
fill by status (restored blue, failed red...), a thick red outline on failures, a thick
orange outline on what succeeded only after retries, a red dashed one on handled failures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _dot_read import label_text, node_attrs
from _mermaid_check import check_mermaid

from crewgraph import Agent, Crew, CrewGraphError, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.export.styles import FAILED_OUTLINE, RETRIED_OUTLINE, STATUS_COLOURS
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import tool

DOCS = Path(__file__).resolve().parents[2] / "docs" / "checkpoints.md"


@tool("lookup")
def lookup(q: str) -> str:
    """Look something up."""
    return f"found {q}"


def _crew(llm: Any, **kw: Any) -> Crew:
    agent = Agent(role="Analyst", goal="Analyse", llm=llm, tools=[lookup], max_retry_limit=kw.pop("retries", 0))
    tasks = [
        Task(name="gather", description="Gather data", expected_output="data", agent=agent),
        Task(name="report", description="Report", expected_output="report", agent=agent),
    ]
    return Crew(name="colours", agents=[agent], tasks=tasks, **kw)


def test_restored_nodes_are_blue_and_the_rest_as_they_ran(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    first = FakeLLM([FakeToolCall("lookup", {"q": "owls"}), "data", RuntimeError("model down")])
    with pytest.raises(CrewGraphError) as info:
        _crew(first, checkpoint=CheckpointConfig(path=db)).kickoff()
    failed_graph = info.value.run_graph  # type: ignore[attr-defined]
    failed_dot = failed_graph.to_dot()
    report = node_attrs(failed_dot, "t2_report.agent")
    assert report["fillcolor"] == STATUS_COLOURS["failed"] and report["color"] == FAILED_OUTLINE
    assert "error: " in label_text(report)
    out = _crew(FakeLLM(["report"]), checkpoint=CheckpointConfig(path=db)).kickoff(
        from_checkpoint=info.value.run_id  # type: ignore[attr-defined]
    )
    dot = out.graph.to_dot()
    gather = node_attrs(dot, "t1_gather.agent")
    assert gather["fillcolor"] == STATUS_COLOURS["restored"] == "#a9c8f0"
    assert "(restored)" in label_text(gather)
    assert node_attrs(dot, "t2_report.agent")["fillcolor"] == STATUS_COLOURS["completed"]
    assert "Task: gather" in dot and "Task: report" in dot  # restored tasks keep their box
    chart = check_mermaid(out.graph.to_mermaid())
    assert len(chart.subgraphs) == 2


def test_retried_step_has_an_orange_outline_and_the_failed_call_is_red() -> None:
    out = _crew(FakeLLM([RuntimeError("503 from provider"), "data", "report"]), retries=1).kickoff()
    dot = out.graph.to_dot()
    step = node_attrs(dot, "t1_gather.agent")
    assert step["fillcolor"] == STATUS_COLOURS["completed"]
    assert step["color"] == RETRIED_OUTLINE and step["penwidth"] == "2"
    assert "1 retry" in label_text(step)
    failed_call = node_attrs(dot, "t1_gather.agent.llm1")
    assert failed_call["fillcolor"] == STATUS_COLOURS["failed"] and failed_call["color"] == FAILED_OUTLINE
    assert "color" not in node_attrs(dot, "t2_report.agent")  # nothing to point out


def test_docs_describe_the_colours() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for words in ("restored", "blue", "red", "orange", "dashed", "×"):
        assert words in text, f"docs/checkpoints.md does not mention {words!r}"
