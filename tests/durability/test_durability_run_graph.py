"""The executed graph of a run, end to end: LLM turns, tool calls, failures and retries, in DOT and JSON."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, CrewGraphError, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import ToolFailure, tool

ATTEMPTS: list[int] = []


@tool("flaky")
def flaky(q: str) -> Any:
    """Fails once with a retryable failure, then answers."""
    ATTEMPTS.append(1)
    if len(ATTEMPTS) == 1:
        return ToolFailure(message="temporarily unavailable", retryable=True)
    return f"answer for {q}"


@tool("broken")
def broken(q: str) -> str:
    """Always raises."""
    raise ValueError(f"cannot handle {q}")


@pytest.fixture(autouse=True)
def _reset() -> None:
    ATTEMPTS.clear()


def _crew(llm: Any, tools: list[Any], **kw: Any) -> Crew:
    agent = Agent(role="Analyst", goal="Analyse", llm=llm, tools=tools, max_retry_limit=kw.pop("retries", 0))
    tasks = [
        Task(name="gather", description="Gather data", expected_output="data", agent=agent),
        Task(name="report", description="Report", expected_output="report", agent=agent),
    ]
    return Crew(name="explained", agents=[agent], tasks=tasks, **kw)


def test_llm_turns_and_retried_tool_are_in_the_executed_graph() -> None:
    llm = FakeLLM([FakeToolCall("flaky", {"q": "x"}), "data", "report"])
    out = _crew(llm, [flaky]).kickoff()
    g = out.graph
    tool_id = "t1_gather.agent.it1.0.flaky"
    assert g.record(tool_id).attempts == 2 and g.record(tool_id).status == "completed"
    llm_records = [r for r in g.records() if r.kind == "llm"]
    assert [r.node_id for r in llm_records] == ["t1_gather.agent.llm1", "t1_gather.agent.llm2", "t2_report.agent.llm1"]
    assert all(r.parent == r.node_id.rsplit(".", 1)[0] and r.status == "completed" for r in llm_records)
    assert llm_records[0].info["tool_calls"] == ["flaky"]
    assert g.record("t1_gather.agent").info["llm_calls"] == 2
    # Tokens are counted once: on the steps, not again on their LLM children.
    assert out.token_usage.total_tokens == sum(r.info["total_tokens"] for r in llm_records)

    dot = g.to_dot()
    assert '\t"t1_gather.agent" -> "t1_gather.agent.llm1" [' in dot  # the step's first call
    assert "1 retry" in dot and "<B>LLM</B><BR/><FONT" in dot and ">fake · " in dot
    data = g.to_json()
    json.dumps(data)
    nodes = {n["id"]: n for n in data["nodes"]}
    assert nodes[tool_id]["retries"] == 1
    assert nodes["t2_report.agent.llm1"]["kind"] == "llm"
    assert {"source": "t1_gather.agent", "target": "t1_gather.agent.llm2", "kind": "spawned"} in data["edges"]
    assert data["totals"]["retries"] == 1
    assert data["totals"]["tokens"] == out.token_usage.total_tokens


def test_failed_run_exposes_its_graph_with_the_failure() -> None:
    llm = FakeLLM([FakeToolCall("broken", {"q": "y"})])
    crew = _crew(llm, [broken], tool_failure_policy="raise")
    with pytest.raises(CrewGraphError) as info:
        crew.kickoff()
    run_graph = info.value.run_graph  # type: ignore[attr-defined]
    assert run_graph.status == "failed"
    tool_rec = run_graph.record("t1_gather.agent.it1.0.broken")
    assert tool_rec.status == "failed" and "cannot handle y" in (tool_rec.error or "")
    assert run_graph.record("t1_gather.agent").status == "failed"
    assert run_graph.record("t2_report.agent").status == "pending"
    dot = run_graph.to_dot()
    assert "#f4a3a3" in dot and "error:" in dot  # failed nodes drawn red with their error
    assert run_graph.to_json()["status"] == "failed"


def test_retried_agent_step_shows_the_failed_llm_call() -> None:
    llm = FakeLLM([RuntimeError("503 from provider"), "data", "report"])
    out = _crew(llm, [], retries=1).kickoff()
    g = out.graph
    step = g.record("t1_gather.agent")
    assert step.status == "completed" and step.attempts == 2 and step.executions == 1
    first, second = g.record("t1_gather.agent.llm1"), g.record("t1_gather.agent.llm2")
    assert first.status == "failed" and "503" in (first.error or "")
    assert second.status == "completed"
    dot = g.to_dot()
    assert "1 retry" in dot and "error: 503 from provider" in dot


def test_restored_nodes_are_marked_in_the_executed_graph(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    with pytest.raises(CrewGraphError) as info:
        _crew(FakeLLM(["data", RuntimeError("down")]), [], checkpoint=CheckpointConfig(path=db)).kickoff()
    run_id = info.value.run_id  # type: ignore[attr-defined]
    out = _crew(FakeLLM(["report"]), [], checkpoint=CheckpointConfig(path=db)).kickoff(from_checkpoint=run_id)
    assert out.graph.record("t1_gather.agent").status == "restored"
    assert not [r for r in out.graph.records() if r.parent == "t1_gather.agent"]  # no LLM call re-made
    assert "#a9c8f0" in out.graph.to_dot()  # restored colour


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")
def test_render_executed_graph_to_svg(tmp_path: Path) -> None:
    out = _crew(FakeLLM([FakeToolCall("flaky", {"q": "x"}), "data", "report"]), [flaky]).kickoff()
    path = out.graph.render(tmp_path / "run.svg")
    text = Path(path).read_text()
    assert text.lstrip().startswith("<?xml") or "<svg" in text
    assert ">LLM</text>" in text and "fake · " in text


def test_a_tool_failure_the_run_survived_stands_out_in_the_graph() -> None:
    """Under the default warn policy a raising tool completes as a node (the model reads the
    error and goes on), yet the executed graph must still show that it failed."""
    llm = FakeLLM([FakeToolCall("broken", {"q": "z"}), "data", "report"])
    out = _crew(llm, [broken]).kickoff()
    record = out.graph.record("t1_gather.agent.it1.0.broken")
    assert record.status == "completed" and record.info["failed"] is True
    assert len(out.tool_failures) == 1
    line = next(x for x in out.graph.to_dot().splitlines() if x.strip().startswith('"t1_gather.agent.it1.0.broken" ['))
    assert "tool failure" in line and "dashed" in line
    assert out.graph.to_json()["totals"]["tool_failures"] == 1
