"""Flows: event-driven workflows (``@start``/``@listen``/``@router``, ``and_``/``or_``)
compiled to the same execution graph as crews. ``@persist`` and
``SQLiteFlowPersistence`` live in ``crewgraph.flow.persistence``.

CrewAI's conversational names (``ChatState``, ``ConversationalConfig``,
``ConversationState``...) and ``Expression`` import from here too; they load on
first use, so ``import crewgraph`` stays fast."""

from typing import Any

from crewgraph.flow.conditions import FlowCondition, and_, or_
from crewgraph.flow.decorators import listen, router, start
from crewgraph.flow.flow import Flow
from crewgraph.flow.state import FlowState

_LAZY = {
    "AgentMessage": "crewgraph.flow.conversational.types",
    "ChatState": "crewgraph.flow.conversation",
    "ConversationConfig": "crewgraph.flow.conversational.types",
    "ConversationEvent": "crewgraph.flow.conversational.types",
    "ConversationMessage": "crewgraph.flow.conversational.types",
    "ConversationState": "crewgraph.flow.conversational.types",
    "ConversationalConfig": "crewgraph.flow.conversation",
    "ConversationalInputs": "crewgraph.flow.conversation",
    "Expression": "crewgraph.flow.expressions",
    "RouterConfig": "crewgraph.flow.conversational.types",
}

__all__ = [
    "AgentMessage",
    "ChatState",
    "ConversationConfig",
    "ConversationEvent",
    "ConversationMessage",
    "ConversationState",
    "ConversationalConfig",
    "ConversationalInputs",
    "Expression",
    "Flow",
    "FlowCondition",
    "FlowState",
    "RouterConfig",
    "and_",
    "listen",
    "or_",
    "router",
    "start",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
