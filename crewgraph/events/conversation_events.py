"""Events of conversational flows' turns (CrewAI's ``Conversation*Event``s).

A turn is started, its route selected, its messages added, then completed or
failed; ``session_id`` is the conversation (the state's id). Each turn is also
one flow run, so the run's own flow and method events carry its ``run_id``.
"""

from __future__ import annotations

from typing import Any, Literal

from crewgraph.events.flow_events import FlowEvent

__all__ = [
    "ConversationMessageAddedEvent",
    "ConversationRouteSelectedEvent",
    "ConversationTurnCompletedEvent",
    "ConversationTurnFailedEvent",
    "ConversationTurnStartedEvent",
]


class ConversationTurnStartedEvent(FlowEvent):
    type: str = "conversation_turn_started"
    flow_name: str
    session_id: str


class ConversationTurnCompletedEvent(FlowEvent):
    type: str = "conversation_turn_completed"
    flow_name: str
    session_id: str


class ConversationTurnFailedEvent(FlowEvent):
    type: str = "conversation_turn_failed"
    flow_name: str
    session_id: str
    error: str


class ConversationMessageAddedEvent(FlowEvent):
    type: str = "conversation_message_added"
    flow_name: str
    session_id: str
    role: Literal["user", "assistant", "system", "tool"]
    content: Any
    message_index: int


class ConversationRouteSelectedEvent(FlowEvent):
    type: str = "conversation_route_selected"
    flow_name: str
    session_id: str
    route: str
    user_message: str | None = None
    message_index: int | None = None
    previous_intent: str | None = None
