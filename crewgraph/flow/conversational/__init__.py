"""Conversational flows (CrewAI's ``crewai.flow.conversational``): multi-turn chat sessions.

``class Chat(Flow[ConversationState])`` with ``conversational = True`` (or
``@ConversationConfig(...)``) gets the built-in chat graph
(:mod:`~crewgraph.flow.conversational.graph`) and the turn API
(:mod:`~crewgraph.flow.conversational.mixin`): ``handle_turn``, ``chat``,
``stream_turn``, ``route_turn``, ``append_message``, ``classify_intent``...
"""

from typing import Any

__all__ = [
    "AgentMessage",
    "ConversationConfig",
    "ConversationEvent",
    "ConversationMessage",
    "ConversationMessageRole",
    "ConversationState",
    "RouterConfig",
    "message_to_llm_dict",
]


def __getattr__(name: str) -> Any:  # the models load on first use: ``import crewgraph`` stays fast
    if name in __all__:
        from crewgraph.flow.conversational import types

        return getattr(types, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
