"""Events of flows and their methods."""

from __future__ import annotations

from typing import Any, ClassVar

from crewgraph.events.base import BaseEvent

__all__ = [
    "FlowFinishedEvent",
    "FlowStartedEvent",
    "MethodExecutionFailedEvent",
    "MethodExecutionFinishedEvent",
    "MethodExecutionStartedEvent",
]


class FlowStartedEvent(BaseEvent):
    event_type: ClassVar[str] = "flow_started"
    flow_name: str
    inputs: dict[str, Any] | None = None


class FlowFinishedEvent(BaseEvent):
    event_type: ClassVar[str] = "flow_finished"
    flow_name: str
    result: Any = None
    duration_ms: float = 0.0


class MethodExecutionStartedEvent(BaseEvent):
    event_type: ClassVar[str] = "method_execution_started"
    flow_name: str
    method_name: str


class MethodExecutionFinishedEvent(BaseEvent):
    event_type: ClassVar[str] = "method_execution_finished"
    flow_name: str
    method_name: str
    result: Any = None
    duration_ms: float = 0.0


class MethodExecutionFailedEvent(BaseEvent):
    event_type: ClassVar[str] = "method_execution_failed"
    flow_name: str
    method_name: str
    error: str
