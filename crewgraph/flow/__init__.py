"""Flows: event-driven workflows (``@start``/``@listen``/``@router``, ``and_``/``or_``)
compiled to the same execution graph as crews, with CrewAI's names for asking people
(``Flow.ask``, input providers, ``flow_config``) and for human feedback
(``@human_feedback``, feedback providers, ``HumanFeedbackPending``)."""

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

__all__ = [
    "ConsoleProvider",
    "Flow",
    "FlowCondition",
    "FlowState",
    "HumanFeedbackPending",
    "HumanFeedbackProvider",
    "HumanFeedbackResult",
    "InputProvider",
    "InputResponse",
    "PendingFeedbackContext",
    "and_",
    "flow_config",
    "human_feedback",
    "listen",
    "or_",
    "persist",
    "router",
    "start",
]
