"""ConditionalTask: skipped (a skipped node in the executed graph) when its condition on the
previous task's output is false, with CrewAI's empty skipped output."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from crewgraph import Agent, Crew, Process, Task
from crewgraph.outputs import TaskOutput
from crewgraph.tasks.conditional_task import ConditionalTask
from crewgraph.testing import FakeLLM


def _crew(first_answer: str, callback: Any = None) -> tuple[Crew, FakeLLM, list[Any]]:
    llm = FakeLLM(default=lambda req: first_answer if "Find" in req.messages[1]["content"] else "wrote: " + req.messages[1]["content"][-40:])
    a = Agent(role="R", goal="g", llm=llm)
    seen: list[Any] = []

    def needs_more(output: TaskOutput) -> bool:
        seen.append(output)
        return "few" in output.raw

    t1 = Task(name="find", description="Find items", expected_output="x", agent=a)
    t2 = ConditionalTask(name="more", description="Find more items", expected_output="x", agent=a,
                         condition=needs_more, callback=callback)
    t3 = Task(name="write", description="Write the report", expected_output="x", agent=a)
    return Crew(agents=[a], tasks=[t1, t2, t3]), llm, seen


def test_condition_true_runs_the_task() -> None:
    crew, llm, seen = _crew("only a few items")
    out = crew.kickoff()
    assert [t.raw for t in out.tasks_output][:2] == ["only a few items", "only a few items"]
    assert seen[0].raw == "only a few items"
    assert out.graph.record("t2_more.agent").status == "completed"
    assert out.graph.record("t2_more.condition").info["condition"] is True
    assert len(llm.calls) == 3


def test_condition_false_skips_the_task() -> None:
    called: list[Any] = []
    crew, llm, _ = _crew("plenty of items", callback=called.append)
    out = crew.kickoff()
    skipped = out.tasks_output[1]
    assert skipped.raw == "" and skipped.name == "more" and skipped.agent == "R"
    assert out.graph.record("t2_more.agent").status == "skipped"
    assert out.graph.record("t2_more.condition").info["skipped"] is True
    assert out.graph.record("t2_more.result").status == "completed"
    assert len(llm.calls) == 2 and called == []  # no model call, no callback for the skipped task
    assert out.raw.startswith("wrote: ")
    assert crew.tasks[1].output is not None and crew.tasks[1].output.raw == ""


def test_conditional_rules_at_definition() -> None:
    a = Agent(role="R", goal="g")

    def cond(o: Any) -> bool:
        return True

    c = ConditionalTask(description="c", expected_output="x", agent=a, condition=cond)
    t = Task(description="t", expected_output="x", agent=a)
    with pytest.raises(ValidationError) as first:
        Crew(agents=[a], tasks=[c, t])
    assert [e["type"] for e in first.value.errors()] == ["invalid_first_task"]
    with pytest.raises(ValidationError) as only:
        Crew(agents=[a], tasks=[c])
    assert [e["type"] for e in only.value.errors()] == ["only_conditional_tasks"]
    asynchronous = ConditionalTask(description="c", expected_output="x", agent=a, condition=cond, async_execution=True)
    with pytest.raises(ValidationError) as info:
        Crew(agents=[a], tasks=[t, asynchronous])
    assert [e["type"] for e in info.value.errors()] == ["invalid_async_conditional_task"]
    with pytest.raises(ValidationError, match="exactly one argument"):
        ConditionalTask(description="c", expected_output="x", condition=lambda: True)
    with pytest.raises(ValidationError, match="not supported there"):
        Crew(agents=[a], tasks=[t, ConditionalTask(description="c", expected_output="x", condition=cond)],
             process=Process.hierarchical, manager_llm=FakeLLM(["x"]))


def test_conditional_task_api_and_direct_run() -> None:
    a = Agent(role="R", goal="g", llm=FakeLLM(["direct"]))
    c = ConditionalTask(description="c", expected_output="x", agent=a, condition=lambda o: "go" in o.raw)
    assert c.should_execute(TaskOutput(description="d", raw="go on")) is True
    assert c.get_skipped_task_output().raw == ""
    assert c.execute_sync().raw == "direct"  # run on its own, there is no previous task to ask
    with pytest.warns(UserWarning, match="not JSON data"):
        assert c.model_dump(mode="json")["condition"].endswith("<lambda>")


def test_resume_after_a_skipped_conditional_task(tmp_path: Any) -> None:
    """The resume path: the condition runs again (its route is not checkpointed), every finished
    node behind it is restored, and only the failed task runs again."""
    from crewgraph.checkpoint import CheckpointConfig
    from crewgraph.errors import CrewGraphError

    def build(llm: FakeLLM) -> Crew:
        a = Agent(role="R", goal="g", llm=llm, max_retry_limit=0)
        return Crew(name="cond", agents=[a], checkpoint=CheckpointConfig(path=tmp_path / "cp.db"), tasks=[
            Task(name="find", description="Find", expected_output="x", agent=a),
            ConditionalTask(name="more", description="More", expected_output="x", agent=a,
                            condition=lambda o: "few" in o.raw),
            Task(name="write", description="Write", expected_output="x", agent=a),
        ])

    first = FakeLLM(["plenty", RuntimeError("provider down")])
    with pytest.raises(CrewGraphError) as info:
        build(first).kickoff()
    run_id = str(info.value.run_id)  # type: ignore[attr-defined]
    again = FakeLLM(["the report"])
    out = build(again).kickoff(from_checkpoint=run_id)
    assert [t.raw for t in out.tasks_output] == ["plenty", "", "the report"]
    assert len(again.calls) == 1
    assert out.graph.record("t1_find.agent").status == "restored"
    assert out.graph.record("t2_more.agent").status == "skipped"
