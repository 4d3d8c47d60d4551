"""Flows: event-driven workflows (``@start``/``@listen``/``@router``, ``and_``/``or_``)
compiled to the same execution graph as crews. ``@persist`` and
``SQLiteFlowPersistence`` live in ``crewgraph.flow.persistence``."""

from crewgraph.flow.conditions import FlowCondition, and_, or_
from crewgraph.flow.decorators import listen, router, start
from crewgraph.flow.flow import Flow
from crewgraph.flow.state import FlowState

__all__ = ["Flow", "FlowCondition", "FlowState", "and_", "listen", "or_", "router", "start"]
