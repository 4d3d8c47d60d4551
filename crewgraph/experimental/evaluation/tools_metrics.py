"""How the agent used its tools: which it chose, the values it passed, how it called them.

Each reads the trace's tool uses (what :class:`EvaluationTraceCallback` recorded from the tool
events: tool, args, result, success, error_type). An agent that used no tool gets a score of
None with the reason, not a guess.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from crewgraph.experimental.evaluation._judge import judge
from crewgraph.experimental.evaluation._trace_text import task_context, tool_sample
from crewgraph.experimental.evaluation.base_evaluator import (
    BaseEvaluator,
    EvaluationScore,
    MetricCategory,
)

__all__ = ["ParameterExtractionEvaluator", "ToolInvocationEvaluator", "ToolSelectionEvaluator"]


def _uses(trace: dict[str, Any]) -> list[dict[str, Any]]:
    return list(trace.get("tool_uses", []))


def _failed(use: dict[str, Any]) -> bool:
    return not use.get("success", True) or bool(use.get("error", False))


class ToolSelectionEvaluator(BaseEvaluator):
    """Were the right tools, of those the agent had, chosen for the task?"""

    @property
    def metric_category(self) -> MetricCategory:
        return MetricCategory.TOOL_SELECTION

    def evaluate(self, agent: Any, execution_trace: dict[str, Any], final_output: Any,
                 task: Any = None) -> EvaluationScore:
        uses = _uses(execution_trace)
        tools = list(getattr(agent, "tools", None) or [])
        if not uses:
            reason = "Agent had tools available but didn't use any." if tools else "Agent had no tools available to use."
            return EvaluationScore(score=None, feedback=reason)
        available = "\n".join(f"- {t.name}: {t.description}" for t in tools) or "No tools available"
        chosen = "\n".join(f"- {name}" for name in sorted({str(u.get('tool', 'Unknown tool')) for u in uses}))
        prompt = (f"Agent role: {agent.role}\n{task_context(task)}\n\nAvailable tools for this agent:\n{available}\n\n"
                  f"Tools selected by the agent:\n{chosen}\n\nJudging ONLY the choice among the AVAILABLE tools "
                  "(not their results, how often they were used, or the parameters), did the agent select the "
                  "appropriate tools for this task?")
        return judge(self.llm,
                     "You are an expert evaluator assessing whether an AI agent selected the most appropriate "
                     "of its available tools for a task. Never suggest tools it did not have.",
                     prompt, title="Tool Selection Evaluation",
                     criteria={"relevance": "Selection of appropriate tool types for the task",
                               "coverage": "Selection of all necessary tool types"})


class ParameterExtractionEvaluator(BaseEvaluator):
    """Were the values passed to the tools right, well formatted and complete?"""

    @property
    def metric_category(self) -> MetricCategory:
        return MetricCategory.PARAMETER_EXTRACTION

    def evaluate(self, agent: Any, execution_trace: dict[str, Any], final_output: Any,
                 task: Any = None) -> EvaluationScore:
        uses = _uses(execution_trace)
        if not uses:
            return EvaluationScore(score=None, feedback="No tool usage detected. Cannot evaluate parameter extraction.")
        invalid = [u for u in uses if _failed(u) and u.get("error_type") == "validation_error"]
        samples = "\n\n".join(tool_sample(i + 1, u) for i, u in enumerate(uses[:5]))
        errors = ""
        if invalid:
            errors = (f"\nParameter validation errors detected: {len(invalid)} ({len(invalid) / len(uses):.1%} of "
                      "tool uses)\n" + "\n".join(f"- {u.get('tool')}: {u.get('result')}" for u in invalid[:3]))
        prompt = (f"Agent role: {agent.role}\n{task_context(task)}\n\nParameter extraction examples:\n{samples}\n"
                  f"{errors}\n\nEvaluate ONLY the parameter VALUES the agent passed (not which tools it chose or "
                  "how the calls were structured).")
        return judge(self.llm,
                     "You are an expert evaluator assessing how well an AI agent extracts and formats the "
                     "parameter values of its tool calls. Validation errors signal badly extracted values.",
                     prompt, title="Parameter Extraction Evaluation",
                     criteria={"accuracy": "Correctly identifying required parameters",
                               "formatting": "Properly formatting parameters for tools",
                               "completeness": "Including all necessary information"})


class ToolInvocationEvaluator(BaseEvaluator):
    """Were the tool calls well formed, sequenced, and their errors handled?"""

    @property
    def metric_category(self) -> MetricCategory:
        return MetricCategory.TOOL_INVOCATION

    def evaluate(self, agent: Any, execution_trace: dict[str, Any], final_output: Any,
                 task: Any = None) -> EvaluationScore:
        uses = _uses(execution_trace)
        if not uses:
            return EvaluationScore(score=None, feedback="No tool usage detected. Cannot evaluate tool invocation.")
        failures = Counter(str(u.get("error_type") or "unknown_error") for u in uses if _failed(u))
        breakdown = "".join(f"- {kind}: {count} occurrences ({count / len(uses):.1%})\n" for kind, count in failures.items())
        samples = "\n\n".join(tool_sample(i + 1, u) for i, u in enumerate(uses[:5]))
        prompt = (f"Agent role: {agent.role}\n{task_context(task)}\n\nTool invocation examples:\n{samples}\n\n"
                  f"Tool error rate: {sum(failures.values()) / len(uses):.1%} ({sum(failures.values())} of {len(uses)})\n"
                  f"{'Error type breakdown:' + chr(10) + breakdown if breakdown else ''}\n"
                  "Evaluate ONLY how the tools were invoked: structure, error handling, sequencing.")
        return judge(self.llm,
                     "You are an expert evaluator assessing how correctly an AI agent's tool invocations are "
                     "structured, not which tools it chose nor the values it passed.",
                     prompt, title="Tool Invocation Evaluation",
                     criteria={"structure": "Calls follow the expected syntax and format",
                               "error_handling": "Tool errors are handled appropriately",
                               "invocation_patterns": "Calls are properly sequenced and managed"})
