"""How efficiently the agent reasoned: the model calls of its trace, measured and judged.

The trace's model calls give the measurements (how many, tokens per call, the pause between
them, replies so alike the agent was going round in circles); the judge reads them with a
sample of the replies and scores focus, progression, decision quality, conciseness and loop
avoidance. Fewer than two calls is too little to judge (score None).
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from crewgraph.experimental.evaluation._judge import judge
from crewgraph.experimental.evaluation._trace_text import output_text, task_context
from crewgraph.experimental.evaluation.base_evaluator import (
    BaseEvaluator,
    EvaluationScore,
    MetricCategory,
)

__all__ = ["ReasoningEfficiencyEvaluator"]

_LOOP_SIMILARITY = 0.7
"""Two replies sharing this much of their words (Jaccard) count as the agent repeating itself."""


class ReasoningEfficiencyEvaluator(BaseEvaluator):
    """Scores the agent's reasoning flow from the model calls of its execution trace."""

    @property
    def metric_category(self) -> MetricCategory:
        return MetricCategory.REASONING_EFFICIENCY

    def evaluate(self, agent: Any, execution_trace: dict[str, Any], final_output: Any,
                 task: Any = None) -> EvaluationScore:
        calls = list(execution_trace.get("llm_calls", []))
        if len(calls) < 2:
            return EvaluationScore(score=None, feedback="Insufficient LLM calls to evaluate reasoning efficiency.")
        replies = [_reply_text(call.get("response")) for call in calls]
        tokens = sum(int(call.get("total_tokens") or 0) for call in calls)
        loops = [(i, j) for i in range(len(replies)) for j in range(i + 1, len(replies))
                 if _similarity(replies[i], replies[j]) > _LOOP_SIMILARITY]
        gaps = [(b["start_time"] - a["end_time"]).total_seconds() for a, b in itertools.pairwise(calls)
                if a.get("end_time") and b.get("start_time")]
        metrics = [f"- Total LLM calls: {len(calls)}", f"- Average tokens per call: {tokens / len(calls):.1f}",
                   f"- Detected {len(loops)} potential reasoning loops." if loops
                   else "- No significant reasoning loops detected."]
        if gaps:
            metrics.append(f"- Average time between calls: {sum(gaps) / len(gaps):.2f} seconds")
        samples = "\n\n".join(f"Call {i + 1}:\n{text[:300]}" for i, text in _sampled(replies))
        prompt = (f"Agent role: {agent.role}\n{task_context(task, expected=True)}\n\n"
                  "Reasoning efficiency metrics:\n" + "\n".join(metrics) +
                  f"\n\nSample of the agent's reasoning flow (chronological):\n{samples}\n\n"
                  f"Agent's final output:\n{output_text(final_output)[:500]}\n\n"
                  "Evaluate the reasoning efficiency of this agent from these interactions.")
        return judge(self.llm,
                     "You are an expert evaluator assessing the reasoning efficiency of an AI agent's thought process.",
                     prompt, title="Reasoning Efficiency Evaluation",
                     criteria={"focus": "Staying on topic without tangents",
                               "progression": "Building on previous thinking",
                               "decision_quality": "Making appropriate decisions",
                               "conciseness": "Communicating efficiently",
                               "loop_avoidance": "Avoiding repetitive patterns"})


def _reply_text(response: Any) -> str:
    if isinstance(response, str):
        return response
    if isinstance(response, list):
        return "\n".join(str(m.get("content", "")) for m in response if isinstance(m, dict))
    content = getattr(response, "content", None)
    return content if isinstance(content, str) else str(response or "")


def _similarity(a: str, b: str) -> float:
    words_a = set(re.sub(r"\s+", " ", a.lower()).split())
    words_b = set(re.sub(r"\s+", " ", b.lower()).split())
    union = words_a | words_b
    return len(words_a & words_b) / len(union) if union else 0.0


def _sampled(replies: list[str]) -> list[tuple[int, str]]:
    """All replies when few; else the first two, the middle two and the last two."""
    n = len(replies)
    indices = range(n) if n <= 6 else sorted({0, 1, n // 2 - 1, n // 2, n - 2, n - 1})
    return [(i, replies[i]) for i in indices]
