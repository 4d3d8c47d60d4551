"""Evaluating agents as they work: ``AgentEvaluator`` (CrewAI's ``crewai.experimental``).

Made with the agents to watch and the evaluators to apply, it listens on crewgraph's event
bus: each task one of those agents completes (its ``TaskCompletedEvent``) is queued with the
execution trace :class:`EvaluationTraceCallback` collected, and judged by every evaluator
when the results are asked for (:meth:`get_evaluation_results`, :meth:`get_agent_evaluation`)
-- the judge calls happen then, not on the event bus's dispatcher thread during the run, so a
slow judge model never holds up the crew or the bounded drain at the end of its kickoff. The
scores are CrewAI's: per iteration (:meth:`set_iteration`), per agent role, one
:class:`AgentEvaluationResult` per task, aggregated per agent by :meth:`get_agent_evaluation`.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from crewgraph.events.crew_events import TaskCompletedEvent
from crewgraph.experimental.evaluation import _display
from crewgraph.experimental.evaluation.base_evaluator import (
    AgentAggregatedEvaluationResult,
    AgentEvaluationResult,
    AggregationStrategy,
    BaseEvaluator,
    EvaluationScore,
    MetricCategory,
)
from crewgraph.experimental.evaluation.evaluation_listener import (
    create_evaluation_callbacks,
    find_agent_and_task,
)

__all__ = ["AgentEvaluator", "ExecutionState", "create_default_evaluator"]


class ExecutionState:
    """Where an evaluation stands: the current agent and task, the iteration and its results."""

    current_agent_id: str | None = None
    current_task_id: str | None = None

    def __init__(self) -> None:
        self.traces: dict[str, Any] = {}
        self.iteration = 1
        self.iterations_results: dict[int, dict[str, list[AgentEvaluationResult]]] = {}
        self.agent_evaluators: dict[str, Sequence[BaseEvaluator] | None] = {}


class AgentEvaluator:
    """Scores ``agents``' tasks with ``evaluators`` (see the module docstring)."""

    def __init__(self, agents: list[Any], evaluators: Sequence[BaseEvaluator] | None = None) -> None:
        self.agents: list[Any] = list(agents)
        self.evaluators: Sequence[BaseEvaluator] | None = evaluators
        self.callback = create_evaluation_callbacks()
        self._execution_state = ExecutionState()
        self._state_lock = threading.Lock()
        self._queued: list[tuple[int, Any, Any, Any, dict[str, Any]]] = []
        for agent in self.agents:
            self._execution_state.agent_evaluators[str(agent.id)] = self.evaluators
        from crewgraph.events.bus import crewgraph_event_bus

        crewgraph_event_bus.register_handler(TaskCompletedEvent, self._handle_task_completed)

    def _handle_task_completed(self, source: Any, event: TaskCompletedEvent) -> None:
        agent, task = find_agent_and_task(source, event)
        if agent is None or str(agent.id) not in self._execution_state.agent_evaluators:
            return
        trace = self.callback.get_trace(str(agent.id), str(task.id))
        if not trace:
            return
        with self._state_lock:
            self._queued.append((self._execution_state.iteration, agent, _as_run(task, trace), event.output, trace))

    def _evaluate_queued(self) -> None:
        with self._state_lock:
            queued, self._queued = self._queued, []
        for iteration, agent, task, output, trace in queued:
            state = ExecutionState()
            state.current_agent_id, state.current_task_id = str(agent.id), str(task.id)
            state.iteration = iteration
            result = self._evaluate(agent, trace, output, state, task, iteration)
            with self._state_lock:
                by_role = self._execution_state.iterations_results.setdefault(iteration, {})
                by_role.setdefault(agent.role, []).append(result)

    def set_iteration(self, iteration: int) -> None:
        """Results from now on belong to run ``iteration``."""
        self._evaluate_queued()
        self._execution_state.iteration = iteration

    def reset_iterations_results(self) -> None:
        """Forget every iteration's results (and the tasks not yet judged)."""
        with self._state_lock:
            self._queued = []
            self._execution_state.iterations_results = {}

    def get_evaluation_results(self) -> dict[str, list[AgentEvaluationResult]]:
        """The current iteration's results: agent role -> one result per task."""
        self._evaluate_queued()
        return dict(self._execution_state.iterations_results.get(self._execution_state.iteration, {}))

    def display_results_with_iterations(self) -> None:
        """Print every iteration's scores per agent and metric."""
        self._evaluate_queued()
        _display.summary_table(self._execution_state.iterations_results, self._aggregate)

    def display_evaluation_with_feedback(self) -> None:
        """Print each agent's scores with the judges' feedback, per iteration."""
        self._evaluate_queued()
        _display.feedback_tables(self._execution_state.iterations_results, self._aggregate)

    def get_agent_evaluation(self, strategy: AggregationStrategy = AggregationStrategy.SIMPLE_AVERAGE,
                             include_evaluation_feedback: bool = True) -> dict[str, AgentAggregatedEvaluationResult]:
        """The current iteration's results aggregated per agent role (and printed, as CrewAI does)."""
        results = self.get_evaluation_results()
        aggregated = {role: self._aggregate(rs[0].agent_id, role, rs, strategy) for role, rs in results.items() if rs}
        done = self._execution_state.iterations_results
        if done and self._execution_state.iteration == max(done, default=0):
            self.display_results_with_iterations()
        if include_evaluation_feedback:
            self.display_evaluation_with_feedback()
        return aggregated

    def evaluate(self, agent: Any, execution_trace: dict[str, Any], final_output: Any, state: ExecutionState,
                 task: Any = None) -> AgentEvaluationResult:
        """Judge one piece of work with every evaluator; an evaluator that fails is reported
        (``AgentEvaluationFailedEvent``) and leaves its metric out, the others still count."""
        return self._evaluate(agent, execution_trace, final_output, state, task, self._execution_state.iteration)

    def _evaluate(self, agent: Any, trace: dict[str, Any], output: Any, state: ExecutionState, task: Any,
                  iteration: int) -> AgentEvaluationResult:
        if self.evaluators is None:
            raise ValueError("AgentEvaluator has no evaluators: pass evaluators=[...] or use create_default_evaluator()")
        result = AgentEvaluationResult(agent_id=state.current_agent_id or str(agent.id),
                                       task_id=state.current_task_id or (str(task.id) if task else "unknown_task"))
        task_id = str(task.id) if task is not None else None
        for evaluator in self.evaluators:
            self._emit("AgentEvaluationStartedEvent", agent_role=agent.role, agent_id=str(agent.id),
                       task_id=task_id, iteration=iteration)
            try:
                score = evaluator.evaluate(agent=agent, execution_trace=trace, final_output=output, task=task)
            except Exception as exc:  # one failing judge must not lose the other metrics (CrewAI's rule)
                self._emit("AgentEvaluationFailedEvent", agent_role=agent.role, agent_id=str(agent.id),
                           task_id=task_id, iteration=iteration, error=str(exc))
                _display.say(f"Error in {evaluator.metric_category.value} evaluator: {exc}")
                continue
            result.metrics[evaluator.metric_category] = score
            self._emit("AgentEvaluationCompletedEvent", agent_role=agent.role, agent_id=str(agent.id),
                       task_id=task_id, iteration=iteration, metric_category=evaluator.metric_category, score=score)
        return result

    def emit_evaluation_started_event(self, agent_role: str, agent_id: str, task_id: str | None = None) -> None:
        """Announce that an evaluation of ``agent_role``'s work started."""
        self._emit("AgentEvaluationStartedEvent", agent_role=agent_role, agent_id=agent_id, task_id=task_id,
                   iteration=self._execution_state.iteration)

    def emit_evaluation_completed_event(self, agent_role: str, agent_id: str, task_id: str | None = None,
                                        metric_category: MetricCategory | None = None,
                                        score: EvaluationScore | None = None) -> None:
        """Announce one metric's score."""
        self._emit("AgentEvaluationCompletedEvent", agent_role=agent_role, agent_id=agent_id, task_id=task_id,
                   iteration=self._execution_state.iteration, metric_category=metric_category, score=score)

    def emit_evaluation_failed_event(self, agent_role: str, agent_id: str, error: str,
                                     task_id: str | None = None) -> None:
        """Announce that an evaluator failed."""
        self._emit("AgentEvaluationFailedEvent", agent_role=agent_role, agent_id=agent_id, task_id=task_id,
                   iteration=self._execution_state.iteration, error=error)

    def _emit(self, name: str, **fields: Any) -> None:
        from crewgraph.experimental.evaluation._events import emit_evaluation_event

        emit_evaluation_event(self, name, fields)

    @staticmethod
    def _aggregate(agent_id: str, agent_role: str, results: Sequence[AgentEvaluationResult],
                   strategy: AggregationStrategy = AggregationStrategy.SIMPLE_AVERAGE) -> AgentAggregatedEvaluationResult:
        """One agent's per-task scores as one per metric: the mean of the scores that apply (the
        strategy is recorded, as CrewAI's), the feedback of every task kept."""
        by_metric: dict[MetricCategory, list[EvaluationScore]] = defaultdict(list)
        for result in results:
            for category, score in result.metrics.items():
                by_metric[category].append(score)
        metrics: dict[MetricCategory, EvaluationScore] = {}
        for category, scores in by_metric.items():
            valid = [s.score for s in scores if s.score is not None]
            feedbacks = [s.feedback for s in scores if s.feedback]
            feedback = feedbacks[0] if len(feedbacks) == 1 else "\n\n".join(
                f"Feedback {i + 1}: {text}" for i, text in enumerate(feedbacks))
            metrics[category] = EvaluationScore(score=sum(valid) / len(valid) if valid else None, feedback=feedback)
        valid_overall = [m.score for m in metrics.values() if m.score is not None]
        return AgentAggregatedEvaluationResult(
            agent_id=agent_id, agent_role=agent_role, metrics=metrics, task_count=len(results),
            aggregation_strategy=strategy, task_results=[r.task_id for r in results],
            overall_score=sum(valid_overall) / len(valid_overall) if valid_overall else None)


def _as_run(task: Any, trace: dict[str, Any]) -> Any:
    """The task as its agent read it: description and expected output with the run's inputs."""
    inputs = trace.get("inputs") or {}
    if not inputs or not hasattr(task, "model_copy"):
        return task
    from crewgraph._internal.interpolate import interpolate

    return task.model_copy(update={"description": interpolate(task.description, inputs),
                                   "expected_output": interpolate(task.expected_output, inputs)})


def create_default_evaluator(agents: list[Any], llm: Any = None) -> AgentEvaluator:
    """An :class:`AgentEvaluator` of ``agents`` with all six evaluators, judged by ``llm``."""
    from crewgraph.experimental.evaluation.goal_metrics import (
        GoalAlignmentEvaluator,
        SemanticQualityEvaluator,
    )
    from crewgraph.experimental.evaluation.reasoning_metrics import ReasoningEfficiencyEvaluator
    from crewgraph.experimental.evaluation.tools_metrics import (
        ParameterExtractionEvaluator,
        ToolInvocationEvaluator,
        ToolSelectionEvaluator,
    )

    evaluators = [GoalAlignmentEvaluator(llm=llm), SemanticQualityEvaluator(llm=llm), ToolSelectionEvaluator(llm=llm),
                  ParameterExtractionEvaluator(llm=llm), ToolInvocationEvaluator(llm=llm),
                  ReasoningEfficiencyEvaluator(llm=llm)]
    return AgentEvaluator(agents=agents, evaluators=evaluators)
