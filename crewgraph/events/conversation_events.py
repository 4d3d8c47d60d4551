"""Events of conversational flows' turns (CrewAI's ``Conversation*Event``s).

A turn is started, its route selected, its messages added, then completed or
failed; ``session_id`` is the conversation (the state's id). Each turn is also
one flow run, so the run's own flow and method events carry its ``run_id``.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from crewgraph.events.base import BaseEvent

__all__ = [
    "ConversationMessageAddedEvent",
    "ConversationRouteSelectedEvent",
    "ConversationTurnCompletedEvent",
    "ConversationTurnFailedEvent",
    "ConversationTurnStartedEvent",
]


class ConversationTurnStartedEvent(BaseEvent):
    event_type: ClassVar[str] = "conversation_turn_started"
    flow_name: str
    session_id: str


class ConversationTurnCompletedEvent(BaseEvent):
    event_type: ClassVar[str] = "conversation_turn_completed"
    flow_name: str
    session_id: str


class ConversationTurnFailedEvent(BaseEvent):
    event_type: ClassVar[str] = "conversation_turn_failed"
    flow_name: str
    session_id: str
    error: str


class ConversationMessageAddedEvent(BaseEvent):
    event_type: ClassVar[str] = "conversation_message_added"
    flow_name: str
    session_id: str
    role: Literal["user", "assistant", "system", "tool"]
    content: Any
    message_index: int


class ConversationRouteSelectedEvent(BaseEvent):
    event_type: ClassVar[str] = "conversation_route_selected"
    flow_name: str
    session_id: str
    route: str
    user_message: str | None = None
    message_index: int | None = None
    previous_intent: str | None = None
