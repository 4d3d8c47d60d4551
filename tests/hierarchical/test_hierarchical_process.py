"""Process.hierarchical: a manager per task delegating through tools; each delegation is a spawned step."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from crewgraph import Agent, CompileError, Crew, Process, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.compiler.hierarchical import MANAGER_ROLE
from crewgraph.llm.types import LLMResponse
from crewgraph.testing import FakeLLM, FakeRequest, FakeToolCall

DELEGATE = "Delegate_work_to_coworker"
ASK = "Ask_question_to_coworker"


def _team(researcher_llm: Any = None, writer_llm: Any = None) -> tuple[Agent, Agent]:
    researcher = Agent(role="Researcher", goal="Find facts", llm=researcher_llm or FakeLLM(["owl facts"]))
    writer = Agent(role="Senior Writer", goal="Write", llm=writer_llm or FakeLLM(["a fine answer"]))
    return researcher, writer


def _crew(manager: FakeLLM, *agents: Agent, tasks: list[Task] | None = None, **kw: Any) -> Crew:
    tasks = tasks or [
        Task(name="research", description="Research owls", expected_output="notes"),
        Task(name="write", description="Write a post", expected_output="post"),
    ]
    return Crew(agents=list(agents), tasks=tasks, process=Process.hierarchical, manager_llm=manager, **kw)


def test_plan_has_one_manager_step_per_task_in_order() -> None:
    crew = _crew(FakeLLM([]), *_team())
    graph = crew.compile()
    steps = [n for n in graph if n.kind == "manager_step"]
    assert [n.id for n in steps] == ["t1_research.manager", "t2_write.manager"]
    assert graph.execution_predecessors("t2_write.manager") == ["t1_research.manager"]
    assert graph.edge_kind("t1_research.manager", "t2_write.manager") == "context"
    assert graph.meta["process"] == "hierarchical" and graph.meta["manager"] == MANAGER_ROLE
    tools = sorted(v for _, v, k in graph.graph.out_edges("t1_research.manager", data="kind") if k == "may_call")
    assert tools == ["t1_research.tool.ask_question_to_coworker", "t1_research.tool.delegate_work_to_coworker"]
    assert steps[0].describe()["coworkers"] == ["Researcher", "Senior Writer"]
    assert "doubleoctagon" in graph.to_dot()


def test_delegations_become_spawned_coworker_steps() -> None:
    researcher_llm, writer_llm = FakeLLM(["owl facts"]), FakeLLM(["three owls"])
    manager = FakeLLM([
        FakeToolCall(DELEGATE, {"task": "Find owl facts", "context": "for a blog", "coworker": "Researcher"}),
        FakeToolCall(ASK, {"question": "How many owls?", "context": "", "coworker": "senior writer"}),
        "notes: owl facts, three owls",
        "the post",
    ])
    out = _crew(manager, *_team(researcher_llm, writer_llm)).kickoff()
    assert out.raw == "the post"
    assert [t.agent for t in out.tasks_output] == [MANAGER_ROLE, MANAGER_ROLE]
    g = out.graph
    delegated = g.record("t1_research.manager.it1.0.delegate.researcher")
    asked = g.record("t1_research.manager.it2.0.ask.senior_writer")
    assert delegated.kind == asked.kind == "agent_step"
    assert delegated.parent == asked.parent == "t1_research.manager"
    assert delegated.status == asked.status == "completed"
    assert g.record("t1_research.manager.it1.0.delegate.researcher.llm1").status == "completed"
    # The coworker got the task and the context; the manager got the coworker's answer back.
    prompt = researcher_llm.calls[0].prompt
    assert "You are Researcher" in prompt and "Find owl facts" in prompt and "for a blog" in prompt
    assert "How many owls?" in writer_llm.calls[0].prompt
    tool_msgs = [m for m in manager.calls[2].messages if m["role"] == "tool"]
    assert [m["content"] for m in tool_msgs] == ["owl facts", "three owls"]
    assert "notes: owl facts" in manager.calls[3].prompt  # task 2 sees task 1's output
    assert "crew manager" in manager.calls[0].prompt.lower()
    spawned = {(e["source"], e["target"]) for e in g.to_json()["edges"] if e["kind"] == "spawned"}
    assert ("t1_research.manager", "t1_research.manager.it1.0.delegate.researcher") in spawned
    # drawn in the manager's row of calls, after the LLM turn that asked for it
    assert '\t"t1_research.manager.llm1" -> "t1_research.manager.it1.0.delegate.researcher" [' in g.to_dot()


def test_parallel_delegations_in_one_turn_run_concurrently() -> None:
    running: list[int] = [0]
    peak: list[int] = [0]

    async def slow(req: FakeRequest) -> str:
        running[0] += 1
        peak[0] = max(peak[0], running[0])
        await asyncio.sleep(0.05)
        running[0] -= 1
        return "done"

    class Slow(FakeLLM):
        async def acall(self, messages: Any, **kw: Any) -> LLMResponse:
            await slow(FakeRequest(messages, [], None, {}))
            return await super().acall(messages, **kw)

    researcher = Agent(role="Researcher", goal="g", llm=Slow(["r"]))
    writer = Agent(role="Writer", goal="g", llm=Slow(["w"]))
    manager = FakeLLM([
        [FakeToolCall(DELEGATE, {"task": "a", "coworker": "Researcher"}), FakeToolCall(DELEGATE, {"task": "b", "coworker": "Writer"})],
        "both done",
    ])
    task = Task(description="Do both", expected_output="x")
    out = _crew(manager, researcher, writer, tasks=[task]).kickoff()
    assert out.raw == "both done" and peak[0] == 2


def test_unknown_coworker_and_self_delegation_get_a_message_not_a_crash() -> None:
    manager = FakeLLM([
        FakeToolCall(DELEGATE, {"task": "x", "context": "", "coworker": "Bob"}),
        FakeToolCall(DELEGATE, {"task": "x", "context": "", "coworker": "crew  manager"}),
        FakeToolCall(DELEGATE, {"task": "x", "coworker": "  RESEARCHER "}),
        "done",
    ])
    task = Task(description="Do it", expected_output="x")
    out = _crew(manager, *_team(), tasks=[task]).kickoff()
    assert out.raw == "done"
    msgs = [m["content"] for m in manager.calls[3].messages if m["role"] == "tool"]
    assert "'Bob' is not one of your coworkers; valid coworkers are: Researcher, Senior Writer" in msgs[0]
    assert "you cannot delegate to yourself (Crew Manager)" in msgs[1]
    assert msgs[2] == "owl facts"  # case and whitespace do not matter
    assert len(out.tool_failures) == 2
    assert out.graph.record("t1_do_it.manager.it3.0.delegate.researcher").status == "completed"


def test_task_agent_restricts_the_coworkers() -> None:
    researcher, writer = _team()
    manager = FakeLLM([FakeToolCall(DELEGATE, {"task": "x", "coworker": "Senior Writer"}), "done"])
    task = Task(description="Research", expected_output="x", agent=researcher)
    out = _crew(manager, researcher, writer, tasks=[task]).kickoff()
    msg = next(m["content"] for m in manager.calls[1].messages if m["role"] == "tool")
    assert "valid coworkers are: Researcher." in msg
    assert out.raw == "done"


def test_manager_agent_is_used_and_checked() -> None:
    researcher, writer = _team()
    boss = Agent(role="Boss", goal="Lead", llm=FakeLLM([FakeToolCall(DELEGATE, {"task": "t", "coworker": "Researcher"}), "ok"]))
    task = Task(description="Do it", expected_output="x")
    crew = Crew(agents=[researcher, writer], tasks=[task], process=Process.hierarchical, manager_agent=boss)
    out = crew.kickoff()
    assert out.raw == "ok" and out.tasks_output[0].agent == "Boss"

    from crewgraph.tools import tool

    @tool("t")
    def t(x: str) -> str:
        """T."""
        return x

    armed = Agent(role="Boss", goal="Lead", tools=[t])
    with pytest.raises(CompileError, match="must not have tools"):
        Crew(agents=[researcher], tasks=[task], process=Process.hierarchical, manager_agent=armed).compile()
    # Definition errors, raised by Crew(...) itself as CrewAI does:
    with pytest.raises(ValidationError, match="Manager agent should not be included in agents list"):
        Crew(agents=[researcher, boss], tasks=[task], process=Process.hierarchical, manager_agent=boss)
    with pytest.raises(ValidationError, match="the manager agent does not count"):
        Crew(agents=[], tasks=[task], process=Process.hierarchical, manager_llm="gpt-4o-mini")
    with pytest.raises(ValidationError, match="manager_llm` or `manager_agent"):
        Crew(agents=[researcher], tasks=[task], process=Process.hierarchical)


def test_guardrail_redoes_the_manager_step_with_feedback() -> None:
    def long_enough(output: Any) -> tuple[bool, Any]:
        ok = len(output.raw) > 5
        return (ok, output.raw if ok else "too short")

    manager = FakeLLM(["no", "a long enough answer"])
    task = Task(description="Answer", expected_output="x", guardrail=long_enough)
    out = _crew(manager, *_team(), tasks=[task]).kickoff()
    assert out.raw == "a long enough answer"
    assert out.graph.record("t1_answer.manager~redo1").kind == "manager_step"
    assert "too short" in manager.calls[1].prompt


def test_hierarchical_run_resumes_from_checkpoint(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"

    def crew(manager_llm: FakeLLM, researcher_llm: FakeLLM) -> Crew:
        boss = Agent(role="Boss", goal="Lead", llm=manager_llm, max_retry_limit=0)
        researcher, writer = _team(researcher_llm)
        tasks = [
            Task(name="research", description="Research owls", expected_output="notes"),
            Task(name="write", description="Write a post", expected_output="post"),
        ]
        return Crew(agents=[researcher, writer], tasks=tasks, process=Process.hierarchical,
                    manager_agent=boss, checkpoint=CheckpointConfig(path=db))

    first = FakeLLM([FakeToolCall(DELEGATE, {"task": "t", "coworker": "Researcher"}), "notes", RuntimeError("down")])
    with pytest.raises(Exception) as info:
        crew(first, FakeLLM(["owl facts"])).kickoff()
    run_id = info.value.run_id  # type: ignore[attr-defined]
    researcher_llm, second = FakeLLM([]), FakeLLM(["post"])
    out = crew(second, researcher_llm).kickoff(from_checkpoint=run_id)
    assert out.raw == "post" and len(second.calls) == 1 and researcher_llm.calls == []
    assert out.graph.record("t1_research.manager").status == "restored"
    assert [t.raw for t in out.tasks_output] == ["notes", "post"]
