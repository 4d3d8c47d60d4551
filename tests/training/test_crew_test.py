"""Crew.test: an evaluator agent on eval_llm scores every task of every run 1-10 (offline)."""

from __future__ import annotations

from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.events.training_events import CrewTestCompletedEvent, CrewTestResultEvent
from crewgraph.testing import FakeLLM
from crewgraph.training.crew_evaluator import CrewTestResult, TaskEvaluationPydanticOutput


def _crew(llm: Any) -> Crew:
    researcher = Agent(role="Researcher", goal="Find facts", llm=llm)
    writer = Agent(role="Writer", goal="Write", llm=llm)
    return Crew(agents=[researcher, writer], tasks=[
        Task(name="research", description="Research {topic}", expected_output="facts", agent=researcher),
        Task(name="write", description="Write about {topic}", expected_output="a paragraph", agent=writer),
    ])


def test_scores_every_task_of_every_run(capsys: pytest.CaptureFixture[str]) -> None:
    crew_llm = FakeLLM(["facts 1", "text 1", "facts 2", "text 2"])
    judge = FakeLLM([TaskEvaluationPydanticOutput(quality=q) for q in (9.0, 7.0, 8.0, 10.0)], model="judge-model")
    seen: list[Any] = []
    with crewgraph_event_bus.scoped_handlers():
        for cls in (CrewTestResultEvent, CrewTestCompletedEvent):
            crewgraph_event_bus.on(cls)(lambda _src, ev: seen.append(ev))
        result = _crew(crew_llm).test(n_iterations=2, eval_llm=judge, inputs={"topic": "owls"})

    assert isinstance(result, CrewTestResult)
    assert [t.task for t in result.tasks] == ["research", "write"]
    assert [t.scores for t in result.tasks] == [[9.0, 8.0], [7.0, 10.0]]
    assert [t.agent for t in result.tasks] == ["Researcher", "Writer"]
    assert result.crew_scores == [8.0, 9.0] and result.crew_average == 8.5
    assert len(result.run_execution_times) == 2 and all(t >= 0 for t in result.run_execution_times)
    # the judge saw each task's definition and output
    assert "Research owls" in judge.calls[0].prompt and "facts 1" in judge.calls[0].prompt
    assert "Task Execution Evaluator" in judge.calls[0].prompt
    assert "text 2" in judge.calls[3].prompt
    scores = [e.quality for e in seen if isinstance(e, CrewTestResultEvent)]
    assert scores == [9.0, 7.0, 8.0, 10.0] and seen[0].model == "judge-model"
    assert isinstance(seen[-1], CrewTestCompletedEvent)
    table = capsys.readouterr().out
    assert "Tasks Scores" in table and "Run 1" in table and "Run 2" in table
    assert "Task 1" in table and "8.5" in table and "Execution Time (s)" in table and "- Researcher" in table


def test_the_judge_reply_must_be_a_score() -> None:
    judge = FakeLLM(["no idea"] * 4)
    with pytest.raises(Exception, match=r"(?i)quality|TaskEvaluationPydanticOutput|valid"):
        _crew(FakeLLM(["f", "t"])).test(n_iterations=1, eval_llm=judge, inputs={"topic": "x"})


def test_bad_iterations_are_refused() -> None:
    with pytest.raises(ValueError, match="n_iterations must be a positive integer"):
        _crew(FakeLLM([])).test(n_iterations=0, eval_llm=FakeLLM([]))
