"""CrewAI's experimental features, at ``crewai.experimental``'s import paths: the
conversational flow types (see :mod:`crewgraph.flow.conversational`). CrewAI's agent
evaluators under this name are not provided."""

from typing import Any

__all__ = [
    "AgentMessage",
    "ConversationConfig",
    "ConversationEvent",
    "ConversationMessage",
    "ConversationState",
    "RouterConfig",
]


def __getattr__(name: str) -> Any:  # loaded on first use
    if name in __all__:
        from crewgraph.flow.conversational import types

        return getattr(types, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
