"""What an agent evaluation is made of: the metric categories, a score, the evaluator's
interface and the per-task / per-agent result models (CrewAI's ``crewai.experimental``).

An evaluator judges one agent's work on one task from its *execution trace* (the tool uses
and model calls :class:`~crewgraph.experimental.evaluation.evaluation_listener.EvaluationTraceCallback`
collected) and its final output, and returns an :class:`EvaluationScore` from 0 to 10 (None
when the metric does not apply, e.g. tool selection for an agent that used no tools).
"""

from __future__ import annotations

import abc
import enum
from typing import Any

from pydantic import BaseModel, Field

__all__ = [
    "AgentAggregatedEvaluationResult",
    "AgentEvaluationResult",
    "AggregationStrategy",
    "BaseEvaluator",
    "EvaluationScore",
    "MetricCategory",
]


class MetricCategory(enum.Enum):
    """What an evaluator measures (the key of a result's ``metrics``)."""

    GOAL_ALIGNMENT = "goal_alignment"
    SEMANTIC_QUALITY = "semantic_quality"
    REASONING_EFFICIENCY = "reasoning_efficiency"
    TOOL_SELECTION = "tool_selection"
    PARAMETER_EXTRACTION = "parameter_extraction"
    TOOL_INVOCATION = "tool_invocation"

    def title(self) -> str:
        """The category as a heading: ``"Goal Alignment"``."""
        return self.value.replace("_", " ").title()


class EvaluationScore(BaseModel):
    """One metric's verdict: a 0-10 score (None: not applicable), the reasons, the judge's reply."""

    score: float | None = Field(default=5.0, ge=0.0, le=10.0,
                                description="0 (worst) to 10 (best); None when the metric does not apply")
    feedback: str = Field(default="", description="Why the score is what it is")
    raw_response: str | None = Field(default=None, description="The judge model's reply as it came")

    def __str__(self) -> str:
        if self.score is None:
            return f"Score: N/A - {self.feedback}"
        return f"Score: {self.score:.1f}/10 - {self.feedback}"


class BaseEvaluator(abc.ABC):
    """An evaluator of one metric. ``llm`` is the judge: a ``BaseLLM`` or a model name (an
    ``LLM`` is made of it); None uses crewgraph's default model."""

    def __init__(self, llm: Any = None) -> None:
        from crewgraph.experimental.evaluation._judge import judge_llm

        self.llm: Any = judge_llm(llm)

    @property
    @abc.abstractmethod
    def metric_category(self) -> MetricCategory:
        """The category this evaluator's scores are filed under."""

    @abc.abstractmethod
    def evaluate(
        self,
        agent: Any,
        execution_trace: dict[str, Any],
        final_output: Any,
        task: Any = None,
    ) -> EvaluationScore:
        """Score ``agent``'s work (``final_output``, how it got there in ``execution_trace``)."""


class AgentEvaluationResult(BaseModel):
    """Every metric's score for one agent on one task."""

    agent_id: str = Field(description="ID of the evaluated agent")
    task_id: str = Field(description="ID of the task that was executed")
    metrics: dict[MetricCategory, EvaluationScore] = Field(default_factory=dict)


class AggregationStrategy(enum.Enum):
    """How one agent's per-task scores become one score per metric."""

    SIMPLE_AVERAGE = "simple_average"
    WEIGHTED_BY_COMPLEXITY = "weighted_by_complexity"
    BEST_PERFORMANCE = "best_performance"
    WORST_PERFORMANCE = "worst_performance"


class AgentAggregatedEvaluationResult(BaseModel):
    """One agent's scores over all its tasks of an iteration, aggregated by ``aggregation_strategy``."""

    agent_id: str = ""
    agent_role: str = ""
    task_count: int = 0
    aggregation_strategy: AggregationStrategy = AggregationStrategy.SIMPLE_AVERAGE
    metrics: dict[MetricCategory, EvaluationScore] = Field(default_factory=dict)
    task_results: list[str] = Field(default_factory=list, description="IDs of the tasks aggregated")
    overall_score: float | None = None

    def __str__(self) -> str:
        lines = [f"Agent Evaluation: {self.agent_role}", f"Strategy: {self.aggregation_strategy.value}",
                 f"Tasks evaluated: {self.task_count}"]
        for category, score in self.metrics.items():
            lines.append(f"\n- {category.value.upper()}: {score.score}/10")
            if score.feedback:
                lines.append("  " + "\n  ".join(score.feedback.split("\n")))
        return "\n".join(lines) + "\n"
