"""``crewai.experimental.conversational``: the conversational flow types (see
:mod:`crewgraph.flow.conversational`)."""

from crewgraph.flow.conversational.types import ConversationConfig, ConversationState, RouterConfig

__all__ = ["ConversationConfig", "ConversationState", "RouterConfig"]
