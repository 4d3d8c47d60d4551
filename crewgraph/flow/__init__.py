"""Flows: event-driven workflows (``@start``/``@listen``/``@router``, ``and_``/``or_``)
compiled to the same execution graph as crews, with CrewAI's names for asking people
(``Flow.ask``, input providers, ``flow_config``) and for human feedback
(``@human_feedback``, feedback providers, ``HumanFeedbackPending``).

CrewAI's conversational names (``ChatState``, ``ConversationalConfig``,
``ConversationState``...) and ``Expression`` import from here too; they load on
first use, so ``import crewgraph`` stays fast."""

from typing import Any

from crewgraph.flow.async_feedback import (
    ConsoleProvider,
    HumanFeedbackPending,
    HumanFeedbackProvider,
    PendingFeedbackContext,
)
from crewgraph.flow.conditions import FlowCondition, and_, or_
from crewgraph.flow.decorators import listen, router, start
from crewgraph.flow.flow import Flow
from crewgraph.flow.flow_config import flow_config
from crewgraph.flow.human_feedback import HumanFeedbackResult, human_feedback
from crewgraph.flow.input_provider import InputProvider, InputResponse
from crewgraph.flow.persistence import persist
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
    "FlowStructure": "crewgraph.flow.visualization",
    "build_flow_structure": "crewgraph.flow.visualization",
    "visualize_flow_structure": "crewgraph.flow.visualization",
    "RouterConfig": "crewgraph.flow.conversational.types",
}

__all__ = [
    "AgentMessage",
    "ChatState",
    "ConsoleProvider",
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
    "FlowStructure",
    "HumanFeedbackPending",
    "HumanFeedbackProvider",
    "HumanFeedbackResult",
    "InputProvider",
    "InputResponse",
    "PendingFeedbackContext",
    "RouterConfig",
    "and_",
    "build_flow_structure",
    "flow_config",
    "human_feedback",
    "listen",
    "or_",
    "persist",
    "router",
    "start",
    "visualize_flow_structure",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
