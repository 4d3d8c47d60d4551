"""CrewAI's import path ``crewai.tasks.hallucination_guardrail``: a thin re-export of :mod:`crewgraph.spec.guardrails`."""

from crewgraph.spec.guardrails import HallucinationGuardrail

__all__ = ["HallucinationGuardrail"]
