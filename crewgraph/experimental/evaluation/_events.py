"""The agent-evaluation events (``AgentEvaluationStartedEvent``/``CompletedEvent``/``FailedEvent``).

They are CrewAI's events at ``crewai.events``, so they belong to crewgraph's events package
(:mod:`crewgraph.events`), which defines them; they are looked up there by name, so this package
never carries a second copy of an event class.
"""

from __future__ import annotations

from typing import Any

__all__ = ["emit_evaluation_event"]


def emit_evaluation_event(source: Any, name: str, fields: dict[str, Any]) -> bool:
    """Emit the event class ``name`` of :mod:`crewgraph.events` with ``fields``; False when
    crewgraph's events package does not define it (yet)."""
    import crewgraph.events as events

    try:
        event_type = getattr(events, name)
    except (AttributeError, ImportError):
        return False
    accepted = getattr(event_type, "model_fields", {})
    event_type_fields = {k: v for k, v in fields.items() if k in accepted}
    from crewgraph.events.bus import crewgraph_event_bus

    crewgraph_event_bus.emit(source, event_type(**event_type_fields))
    return True
