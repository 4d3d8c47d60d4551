"""CrewAI's import path ``crewai.tasks.llm_guardrail``: a thin re-export of :mod:`crewgraph.spec.guardrails`."""

from crewgraph.spec.guardrails import LLMGuardrail, LLMGuardrailResult

__all__ = ["LLMGuardrail", "LLMGuardrailResult"]
