"""Did the agent do what it was asked, and how good is what it produced?

:class:`GoalAlignmentEvaluator` judges the output against the agent's goal and the task's
expected output; :class:`SemanticQualityEvaluator` judges the output itself (clarity,
accuracy, coherence), whatever the goal.
"""

from __future__ import annotations

from typing import Any

from crewgraph.experimental.evaluation._judge import judge
from crewgraph.experimental.evaluation._trace_text import output_text, task_context
from crewgraph.experimental.evaluation.base_evaluator import (
    BaseEvaluator,
    EvaluationScore,
    MetricCategory,
)

__all__ = ["GoalAlignmentEvaluator", "SemanticQualityEvaluator"]


class GoalAlignmentEvaluator(BaseEvaluator):
    """How well the output achieves the agent's goal and the task's expected output."""

    @property
    def metric_category(self) -> MetricCategory:
        return MetricCategory.GOAL_ALIGNMENT

    def evaluate(self, agent: Any, execution_trace: dict[str, Any], final_output: Any,
                 task: Any = None) -> EvaluationScore:
        prompt = (f"Agent role: {agent.role}\nAgent goal: {agent.goal}\n{task_context(task, expected=True)}\n\n"
                  f"Agent's final output:\n{output_text(final_output)}\n\n"
                  "Evaluate how well the agent's output aligns with the assigned task goal.")
        return judge(self.llm,
                     "You are an expert evaluator assessing how well an AI agent's output aligns with its "
                     "assigned task goal.",
                     prompt, title="Goal Alignment Evaluation",
                     criteria={"goal_alignment": "How fully the output achieves the goal and the expected output"})


class SemanticQualityEvaluator(BaseEvaluator):
    """The quality of the output as a piece of work: clarity, accuracy, coherence, relevance."""

    @property
    def metric_category(self) -> MetricCategory:
        return MetricCategory.SEMANTIC_QUALITY

    def evaluate(self, agent: Any, execution_trace: dict[str, Any], final_output: Any,
                 task: Any = None) -> EvaluationScore:
        prompt = (f"Agent role: {agent.role}\n{task_context(task)}\n\n"
                  f"Agent's final output:\n{output_text(final_output)}\n\n"
                  "Evaluate the semantic quality of the agent's output.")
        return judge(self.llm,
                     "You are an expert evaluator assessing the semantic quality of an AI agent's output: "
                     "its clarity, accuracy, coherence and relevance, independent of tool use.",
                     prompt, title="Semantic Quality Evaluation",
                     criteria={"clarity": "Easy to understand", "accuracy": "Factually and logically sound",
                               "coherence": "Holds together", "relevance": "Addresses the task"})
