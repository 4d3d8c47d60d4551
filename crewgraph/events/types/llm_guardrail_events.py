"""CrewAI's import path ``crewai.events.types.llm_guardrail_events``.

CrewAI names these events ``LLMGuardrail*``; crewgraph emits the same events for
every guardrail (function or text) as ``Guardrail*``. Both names are the same classes.
"""

from crewgraph.events.guardrail_events import GuardrailCompletedEvent, GuardrailStartedEvent

LLMGuardrailStartedEvent = GuardrailStartedEvent
LLMGuardrailCompletedEvent = GuardrailCompletedEvent

__all__ = ["GuardrailCompletedEvent", "GuardrailStartedEvent", "LLMGuardrailCompletedEvent", "LLMGuardrailStartedEvent"]
