"""Small CrewAI behaviours definitions keep: ``model_validate(x.model_dump())`` round-trips, a
``function_calling_llm`` model name becomes an ``LLM``, an absolute ``output_file`` stays absolute."""

from __future__ import annotations

from pathlib import Path

from crewgraph import LLM, Agent, Crew, Process, Task
from crewgraph.testing import FakeLLM


def test_agent_task_and_crew_round_trip_through_model_dump() -> None:
    writer = Agent(role="Writer", goal="write", backstory="b", max_iter=3)
    boss = Agent(role="Boss", goal="manage", backstory="b", allow_delegation=True)
    first = Task(description="draft", expected_output="a draft", agent=writer)
    second = Task(description="polish", expected_output="text", agent=writer, context=[first])
    crews = [Crew(agents=[writer], tasks=[first, second]),
             Crew(agents=[writer], tasks=[Task(description="x", expected_output="y")],
                  process=Process.hierarchical, manager_agent=boss)]
    for item in (writer, first, second, *crews):
        again = type(item).model_validate(item.model_dump())
        assert again.model_dump() == item.model_dump()
    again_task = Task.model_validate(second.model_dump())
    assert isinstance(again_task.agent, Agent) and again_task.agent.max_iter == 3


def test_function_calling_llm_from_a_name_is_an_llm() -> None:
    agent = Agent.model_validate({"role": "R", "goal": "g", "backstory": "b", "function_calling_llm": "gpt-4o-mini"})
    assert isinstance(agent.function_calling_llm, LLM) and agent.function_calling_llm.model == "gpt-4o-mini"


def test_an_absolute_output_file_stays_absolute(tmp_path: Path) -> None:
    target = tmp_path / "reports" / "out.md"
    agent = Agent(role="R", goal="g", backstory="b", llm=FakeLLM(default="the report"))
    task = Task(description="d", expected_output="e", agent=agent, output_file=str(target))
    assert task.output_file == str(target)
    Crew(agents=[agent], tasks=[task]).kickoff()
    assert target.read_text(encoding="utf-8") == "the report"
