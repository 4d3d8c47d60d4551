"""Events of flows and their methods."""

from __future__ import annotations

from typing import Any, ClassVar

from crewgraph.events.base import BaseEvent

__all__ = [
    "FlowEvent",
    "FlowFinishedEvent",
    "FlowPausedEvent",
    "FlowStartedEvent",
    "MethodExecutionFailedEvent",
    "MethodExecutionFinishedEvent",
    "MethodExecutionStartedEvent",
]


class FlowEvent(BaseEvent):
    """The base of the flow and flow-method events: subscribe to it for all of a flow's events."""

    event_type: ClassVar[str] = "flow"


class FlowStartedEvent(FlowEvent):
    event_type: ClassVar[str] = "flow_started"
    flow_name: str
    inputs: dict[str, Any] | None = None


class FlowFinishedEvent(FlowEvent):
    event_type: ClassVar[str] = "flow_finished"
    flow_name: str
    result: Any = None
    duration_ms: float = 0.0


class FlowPausedEvent(FlowEvent):
    """The run stopped to wait for a person: resume it with ``Flow.resume(run_id, answer)``."""

    event_type: ClassVar[str] = "flow_paused"
    flow_name: str
    questions: list[str] = []


class MethodExecutionStartedEvent(FlowEvent):
    """A flow method is about to run. ``state``: a dict snapshot of the flow state as the
    method starts (a structured state dumped, as CrewAI's); ``params``: the arguments it is called with (``{"_0": trigger output}``)."""

    event_type: ClassVar[str] = "method_execution_started"
    flow_name: str
    method_name: str
    state: Any = None
    params: dict[str, Any] | None = None


class MethodExecutionFinishedEvent(FlowEvent):
    """A flow method returned; ``state`` is a dict snapshot of the flow state right after it."""

    event_type: ClassVar[str] = "method_execution_finished"
    flow_name: str
    method_name: str
    result: Any = None
    state: Any = None
    duration_ms: float = 0.0


class MethodExecutionFailedEvent(FlowEvent):
    event_type: ClassVar[str] = "method_execution_failed"
    flow_name: str
    method_name: str
    error: str
