"""CrewAI's ready-made guardrails: ``LLMGuardrail`` and ``HallucinationGuardrail``.

Both are callables ``(TaskOutput) -> tuple[bool, Any]``, so they go wherever a
guardrail function goes (``Task(guardrail=...)``, ``guardrails=[...]``).

- ``LLMGuardrail(description, llm)`` asks a "Guardrail Agent" on ``llm`` whether
  the output complies with ``description``, as CrewAI does: the agent answers
  an :class:`LLMGuardrailResult` (``valid``, ``feedback``) through
  ``Agent.kickoff(..., response_format=...)``, so a custom model (a ``call()``
  override) judges with no request sent. Valid: ``(True, output.raw)``; invalid:
  ``(False, feedback)``; a judge that fails: ``(False, "Error while validating
  the task output: ...")``.
- ``HallucinationGuardrail(context, llm, threshold=None, tool_response="")`` is,
  as in CrewAI's open-source package, a no-op: it warns that hallucination
  detection is not available and accepts every output (``(True, output.raw)``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from crewgraph.outputs import TaskOutput

__all__ = ["HallucinationGuardrail", "LLMGuardrail", "LLMGuardrailResult"]

_log = logging.getLogger("crewgraph.guardrails")

_QUERY = """Ensure the following task result complies with the given guardrail.

Task result:
{raw}

Guardrail:
{description}

Your task:
- Confirm if the Task result complies with the guardrail.
- If not, give clear feedback on what is wrong (by how much it breaks the rule, or which part fails).
- Only identify the issues; do not propose corrections.
- If the Task result complies with the guardrail, say that it is valid."""


class LLMGuardrailResult(BaseModel):
    """What the guardrail agent answers."""

    valid: bool = Field(description="Whether the task output complies with the guardrail")
    feedback: str | None = Field(default=None, description="What is wrong with the task output, if it is not valid")


class LLMGuardrail:
    """Validates a task's output against ``description`` with an agent on ``llm``."""

    def __init__(self, description: str, llm: Any) -> None:
        if not isinstance(description, str) or not description.strip():
            raise ValueError("LLMGuardrail: description must be a non-empty text")
        from crewgraph.llm import as_llm

        self.description = description
        self.llm = as_llm(llm)

    def _validate_output(self, task_output: TaskOutput) -> Any:
        from crewgraph.spec.agent import Agent

        agent = Agent(
            role="Guardrail Agent",
            goal="Validate the output of the task",
            backstory="You are an expert at validating the output of a task, with effective feedback when "
            "it is not valid.",
            llm=self.llm,
        )
        query = _QUERY.format(raw=task_output.raw, description=self.description)
        return agent.kickoff(query, response_format=LLMGuardrailResult)

    def __call__(self, task_output: TaskOutput) -> tuple[bool, Any]:
        try:
            result = self._validate_output(task_output)
            verdict = result.pydantic
            if not isinstance(verdict, LLMGuardrailResult):
                raise ValueError("the guardrail result is not an LLMGuardrailResult")
        except Exception as exc:
            return False, f"Error while validating the task output: {exc}"
        if verdict.valid:
            return True, task_output.raw
        return False, verdict.feedback

    def __repr__(self) -> str:
        return f"LLMGuardrail(description={self.description!r})"


class HallucinationGuardrail:
    """CrewAI's open-source hallucination guardrail: a no-op that accepts every output."""

    def __init__(self, context: str, llm: Any, threshold: float | None = None, tool_response: str = "") -> None:
        self.context = context
        self.llm = llm
        self.threshold = threshold
        self.tool_response = tool_response
        _log.warning("HallucinationGuardrail is a no-op (as in CrewAI's open-source package): "
                     "every output is accepted")

    @property
    def description(self) -> str:
        """How events and logs name this guardrail."""
        return "HallucinationGuardrail (no-op)"

    def __call__(self, task_output: TaskOutput) -> tuple[bool, Any]:
        _log.warning("HallucinationGuardrail: hallucination detection skipped (no-op); the output is accepted")
        return True, task_output.raw
