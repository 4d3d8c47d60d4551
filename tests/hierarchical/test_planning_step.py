"""Crew(planning=True): a planning node before the tasks; each step's prompt carries its plan."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, CrewGraphError, Process, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.nodes.planning import (
    PlannedTask,
    PlannerTaskPydanticOutput,
    PlanningNode,
    PlanPerTask,
)
from crewgraph.testing import FakeLLM, FakeToolCall, run_node


def _plans(*items: tuple[int, str]) -> PlannerTaskPydanticOutput:
    return PlannerTaskPydanticOutput(
        list_of_plans_per_task=[PlanPerTask(task_number=n, task=f"task {n}", plan=p) for n, p in items]
    )


def _crew(llm: Any, planner: Any, **kw: Any) -> Crew:
    agent = Agent(role="Writer", goal="Write about {topic}", llm=llm, max_retry_limit=0)
    tasks = [
        Task(name="research", description="Research {topic}", expected_output="notes", agent=agent, **kw.pop("first", {})),
        Task(name="write", description="Write the post", expected_output="post", agent=agent),
    ]
    return Crew(agents=[agent], tasks=tasks, planning=True, planning_llm=planner, **kw)


def test_planning_node_runs_first_and_plans_reach_each_prompt() -> None:
    planner = FakeLLM([_plans((2, "Outline, then write."), (1, "Search, then summarise."))])
    llm = FakeLLM(["notes", "post"])
    crew = _crew(llm, planner)
    graph = crew.compile()
    assert graph.node("planning").kind == "planning"
    assert graph.execution_successors("planning") == ["t1_research.agent", "t2_write.agent"]
    out = crew.kickoff({"topic": "owls"})
    assert out.raw == "post"
    request = planner.calls[0]
    assert request.response_model is PlannerTaskPydanticOutput
    assert "Task Number 1 - Research owls" in request.prompt and '"agent": Writer' in request.prompt
    assert "Plan for this task:\nSearch, then summarise." in llm.calls[0].prompt
    assert "Plan for this task:\nOutline, then write." in llm.calls[1].prompt
    rec = out.graph.record("planning")
    assert rec.status == "completed" and rec.info["tasks_planned"] == 2
    assert out.graph.record("planning.llm1").status == "completed"
    assert out.token_usage.successful_requests == 3  # the planning call is counted


def test_plans_from_a_text_answer_and_by_position_when_numbers_are_off() -> None:
    text = json.dumps({"list_of_plans_per_task": [
        {"task_number": 7, "task": "a", "plan": "first plan"},
        {"task_number": 7, "task": "b", "plan": "second plan"},
    ]})
    node = PlanningNode(id="planning", tasks=(PlannedTask("k1", "a", "x"), PlannedTask("k2", "b", "y")))
    result = run_node(node, llm=FakeLLM([text]))
    assert result.output == {"k1": "first plan", "k2": "second plan"}


def test_guardrail_redo_keeps_the_plan() -> None:
    def long_enough(output: Any) -> tuple[bool, Any]:
        ok = len(output.raw) > 4
        return ok, output.raw if ok else "longer please"

    planner = FakeLLM([_plans((1, "PLAN-ONE"), (2, "PLAN-TWO"))])
    llm = FakeLLM(["no", "notes!", "post"])
    out = _crew(llm, planner, first={"guardrail": long_enough}).kickoff({"topic": "owls"})
    assert out.tasks_output[0].raw == "notes!"
    assert "PLAN-ONE" in llm.calls[1].prompt and "longer please" in llm.calls[1].prompt


def test_planning_in_a_hierarchical_crew_reaches_the_manager() -> None:
    planner = FakeLLM([_plans((1, "Ask the researcher."))])
    manager = FakeLLM([FakeToolCall("Delegate_work_to_coworker", {"task": "t", "coworker": "Researcher"}), "done"])
    researcher = Agent(role="Researcher", goal="g", llm=FakeLLM(["facts"]))
    crew = Crew(
        agents=[researcher],
        tasks=[Task(description="Research", expected_output="x")],
        process=Process.hierarchical,
        manager_llm=manager,
        planning=True,
        planning_llm=planner,
    )
    assert crew.kickoff().raw == "done"
    assert "Plan for this task:\nAsk the researcher." in manager.calls[0].prompt


def test_resumed_run_keeps_its_plan(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    first = _crew(FakeLLM(["notes", RuntimeError("down")]), FakeLLM([_plans((1, "P1"), (2, "P2"))]),
                  checkpoint=CheckpointConfig(path=db))
    with pytest.raises(CrewGraphError) as info:
        first.kickoff({"topic": "owls"})
    planner, llm = FakeLLM([]), FakeLLM(["post"])
    out = _crew(llm, planner, checkpoint=CheckpointConfig(path=db)).kickoff(
        from_checkpoint=info.value.run_id  # type: ignore[attr-defined]
    )
    assert out.raw == "post" and planner.calls == []
    assert out.graph.record("planning").status == "restored"
    assert "Plan for this task:\nP2" in llm.calls[0].prompt


def test_a_failing_planner_is_named_in_the_error() -> None:
    from crewgraph.errors import StructuredOutputError

    planner = FakeLLM(responses=[StructuredOutputError("no valid PlannerTaskPydanticOutput after 3 attempt(s)")])
    with pytest.raises(StructuredOutputError, match=r"crew planning step \(planning=True\)"):
        _crew(FakeLLM(responses=["a", "b"]), planner).kickoff({"topic": "AI"})
