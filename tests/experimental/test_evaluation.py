"""crewai.experimental's agent evaluation, written as a CrewAI user writes it, offline:
the crew's agents and the judges are FakeLLMs; the traces come from a real crew run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.experimental import (
    AgentEvaluationResult,
    AgentEvaluator,
    EvaluationScore,
    ExperimentResult,
    ExperimentResults,
    ExperimentRunner,
    GoalAlignmentEvaluator,
    MetricCategory,
    ParameterExtractionEvaluator,
    ReasoningEfficiencyEvaluator,
    SemanticQualityEvaluator,
    ToolInvocationEvaluator,
    ToolSelectionEvaluator,
    create_default_evaluator,
    create_evaluation_callbacks,
)
from crewgraph.experimental.evaluation._judge import Verdict
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import tool


@tool("lookup")
def lookup(topic: str) -> str:
    """Look up facts about a topic."""
    return f"{topic} are birds"


def _verdict(score: float, **scores: float) -> Verdict:
    return Verdict(scores=scores or {"x": score}, overall_score=score, feedback=f"scored {score}")


@pytest.fixture(autouse=True)
def _own_bus() -> Any:
    with crewgraph_event_bus.scoped_handlers():
        yield


def _crew(llm: Any) -> tuple[Crew, Agent]:
    researcher = Agent(role="Researcher", goal="Find facts about owls", backstory="b", llm=llm, tools=[lookup])
    task = Task(name="research", description="Research {topic}", expected_output="facts", agent=researcher)
    return Crew(agents=[researcher], tasks=[task]), researcher


def test_the_evaluators_judge_a_real_run() -> None:
    crew, researcher = _crew(FakeLLM([FakeToolCall("lookup", {"topic": "owls"}), "Owls are birds."]))
    judge = FakeLLM([_verdict(8.0, goal_alignment=8.0), _verdict(6.0, relevance=6.0, coverage=6.0),
                     _verdict(7.0, focus=7.0)])
    evaluator = AgentEvaluator(agents=[researcher], evaluators=[
        GoalAlignmentEvaluator(llm=judge), ToolSelectionEvaluator(llm=judge), ReasoningEfficiencyEvaluator(llm=judge),
        ToolInvocationEvaluator(llm=judge)])
    crew.kickoff(inputs={"topic": "owls"})

    results = evaluator.get_evaluation_results()
    assert list(results) == ["Researcher"]
    [result] = results["Researcher"]
    assert isinstance(result, AgentEvaluationResult)
    assert result.agent_id == str(researcher.id) and result.task_id == str(crew.tasks[0].id)
    assert result.metrics[MetricCategory.GOAL_ALIGNMENT].score == 8.0
    assert result.metrics[MetricCategory.TOOL_SELECTION].score == 6.0
    assert result.metrics[MetricCategory.REASONING_EFFICIENCY].score == 7.0
    assert "Relevance: 6.0/10" in result.metrics[MetricCategory.TOOL_SELECTION].feedback
    # the trace reached the judges: the task, the output, the tool chosen, the model calls
    goal_prompt, tools_prompt, reasoning_prompt = (c.prompt for c in judge.calls[:3])
    assert "Research owls" in goal_prompt and "Owls are birds." in goal_prompt and "Find facts about owls" in goal_prompt
    assert "- lookup" in tools_prompt and "lookup: Look up facts" in tools_prompt
    assert "Total LLM calls: 2" in reasoning_prompt
    # the fourth judge's reply ran out: its failure leaves the metric out, the others stay
    assert MetricCategory.TOOL_INVOCATION not in result.metrics


def test_no_tool_use_is_not_applicable_and_costs_no_judge_call() -> None:
    crew, researcher = _crew(FakeLLM(["Owls are birds."]))
    judge = FakeLLM([])
    evaluator = AgentEvaluator(agents=[researcher], evaluators=[
        ToolSelectionEvaluator(llm=judge), ParameterExtractionEvaluator(llm=judge), ToolInvocationEvaluator(llm=judge),
        ReasoningEfficiencyEvaluator(llm=judge)])
    crew.kickoff(inputs={"topic": "owls"})
    [result] = evaluator.get_evaluation_results()["Researcher"]
    assert all(score.score is None for score in result.metrics.values()) and len(result.metrics) == 4
    assert result.metrics[MetricCategory.TOOL_SELECTION].feedback == "Agent had tools available but didn't use any."
    assert judge.calls == []


def test_get_agent_evaluation_aggregates_and_prints(capsys: pytest.CaptureFixture[str]) -> None:
    llm = FakeLLM(["Owls are birds.", "Owls hoot."])
    crew, researcher = _crew(llm)
    judge = FakeLLM([_verdict(8.0), _verdict(6.0)])
    evaluator = AgentEvaluator(agents=[researcher], evaluators=[SemanticQualityEvaluator(llm=judge)])
    crew.kickoff(inputs={"topic": "owls"})
    crew.kickoff(inputs={"topic": "owls"})
    aggregated = evaluator.get_agent_evaluation()["Researcher"]
    assert aggregated.task_count == 2 and aggregated.overall_score == 7.0
    assert aggregated.metrics[MetricCategory.SEMANTIC_QUALITY].score == 7.0
    out = capsys.readouterr().out
    assert "Agent Performance Scores" in out and "Semantic Quality" in out and "Researcher" in out


def test_iterations_are_kept_apart() -> None:
    crew, researcher = _crew(FakeLLM(["a", "b"]))
    judge = FakeLLM([_verdict(3.0), _verdict(9.0)])
    evaluator = AgentEvaluator(agents=[researcher], evaluators=[GoalAlignmentEvaluator(llm=judge)])
    crew.kickoff(inputs={"topic": "owls"})
    evaluator.set_iteration(2)
    crew.kickoff(inputs={"topic": "owls"})
    [second] = evaluator.get_evaluation_results()["Researcher"]
    assert second.metrics[MetricCategory.GOAL_ALIGNMENT].score == 9.0
    evaluator.set_iteration(1)
    [first] = evaluator.get_evaluation_results()["Researcher"]
    assert first.metrics[MetricCategory.GOAL_ALIGNMENT].score == 3.0
    evaluator.reset_iterations_results()
    assert evaluator.get_evaluation_results() == {}


def test_a_judge_reply_that_is_no_verdict_scores_none() -> None:
    agent = Agent(role="R", goal="g", backstory="b", llm=FakeLLM([]))
    score = GoalAlignmentEvaluator(llm=FakeLLM(["I cannot say"])).evaluate(agent, {}, "out")
    assert isinstance(score, EvaluationScore) and score.score is None and "no verdict" in score.feedback


def test_a_judge_overriding_only_call_is_used() -> None:
    from crewgraph import LLM

    class Judge(LLM):
        def call(self, messages: Any, *args: Any, **kwargs: Any) -> str:
            return json.dumps({"scores": {"goal_alignment": 4}, "overall_score": 4, "feedback": "meh"})

    agent = Agent(role="R", goal="g", backstory="b", llm=FakeLLM([]))
    score = GoalAlignmentEvaluator(llm=Judge(model="judge")).evaluate(agent, {}, "out")
    assert score.score == 4.0 and "meh" in score.feedback


def test_the_trace_callback_is_one_collector() -> None:
    assert create_evaluation_callbacks() is create_evaluation_callbacks()
    callback = create_evaluation_callbacks()
    callback.on_lite_agent_start({"id": "a1"})
    callback.on_tool_use("lookup", {"topic": "x"}, "boom", success=False, error_type="validation_error")
    callback.on_lite_agent_finish("done")
    trace = callback.get_trace("a1", "lite_task")
    assert trace is not None and trace["final_output"] == "done"
    assert trace["tool_uses"][0]["error_type"] == "validation_error" and trace["tool_uses"][0]["error"] is True


def test_parameter_extraction_reads_validation_errors() -> None:
    agent = Agent(role="R", goal="g", backstory="b", llm=FakeLLM([]))
    judge = FakeLLM([_verdict(2.0, accuracy=2, formatting=2, completeness=2)])
    trace = {"tool_uses": [{"tool": "lookup", "args": {"topic": 3}, "result": "topic must be a string",
                            "success": False, "error": True, "error_type": "validation_error"}]}
    score = ParameterExtractionEvaluator(llm=judge).evaluate(agent, trace, "out")
    assert score.score == 2.0 and "Accuracy: 2" in score.feedback
    assert "Parameter validation errors detected: 1" in judge.calls[0].prompt


def test_experiment_runner_and_baseline(tmp_path: Path) -> None:
    crew, _ = _crew(FakeLLM(default="Owls are birds."))
    runner = ExperimentRunner(dataset=[
        {"identifier": "owls", "inputs": {"topic": "owls"}, "expected_score": 5},
        {"identifier": "bats", "inputs": {"topic": "bats"}, "expected_score": {"goal_alignment": 9}},
    ])
    results = runner.run(crew=crew, llm=FakeLLM(default=_verdict(7.0)))
    assert isinstance(results, ExperimentResults)
    owls, bats = results.results
    assert isinstance(owls, ExperimentResult)
    assert owls.passed and not bats.passed
    assert isinstance(owls.score, dict) and owls.score["goal_alignment"] == 7.0
    baseline = tmp_path / "baseline.json"
    assert results.compare_with_baseline(str(baseline)) == {"is_baseline": True, "changes": {}}
    again = ExperimentResults([owls.model_copy(update={"passed": False}), bats.model_copy(update={"passed": True}),
                               ExperimentResult(identifier="new", inputs={}, score=1, expected_score=1, passed=True)])
    comparison = again.compare_with_baseline(str(baseline))
    assert comparison["regressed"] == ["owls"] and comparison["improved"] == ["bats"] and comparison["new_tests"] == ["new"]
    assert len(json.loads(baseline.read_text())) == 2
    saved = again.to_json(str(tmp_path / "run.json"))
    assert saved["results"][0]["identifier"] == "owls" and "agent_evaluations" not in saved["results"][0]


def test_default_evaluator_has_every_metric() -> None:
    agent = Agent(role="R", goal="g", backstory="b", llm=FakeLLM([]))
    evaluator = create_default_evaluator([agent], llm=FakeLLM([]))
    assert {e.metric_category for e in evaluator.evaluators or []} == set(MetricCategory)


def test_the_evaluation_events_are_emitted() -> None:
    from crewgraph.events import (
        AgentEvaluationCompletedEvent,
        AgentEvaluationFailedEvent,
        AgentEvaluationStartedEvent,
    )

    seen: list[Any] = []
    for cls in (AgentEvaluationStartedEvent, AgentEvaluationCompletedEvent, AgentEvaluationFailedEvent):
        crewgraph_event_bus.on(cls)(lambda _src, ev: seen.append(ev))
    crew, researcher = _crew(FakeLLM(["Owls are birds."]))
    evaluator = AgentEvaluator(agents=[researcher], evaluators=[
        GoalAlignmentEvaluator(llm=FakeLLM([_verdict(6.0)])), SemanticQualityEvaluator(llm=FakeLLM([]))])
    crew.kickoff(inputs={"topic": "owls"})
    evaluator.get_evaluation_results()
    kinds = [type(e).__name__ for e in seen]
    assert kinds == ["AgentEvaluationStartedEvent", "AgentEvaluationCompletedEvent",
                     "AgentEvaluationStartedEvent", "AgentEvaluationFailedEvent"]
    assert seen[1].score.score == 6.0 and seen[1].metric_category is MetricCategory.GOAL_ALIGNMENT
    assert seen[0].agent_role == "Researcher" and seen[0].iteration == 1 and "exhausted" in seen[3].error
