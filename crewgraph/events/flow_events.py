"""Events of flows and their methods."""

from __future__ import annotations

from typing import Any, ClassVar

from crewgraph.events.base import BaseEvent

__all__ = [
    "FlowEvent",
    "FlowFinishedEvent",
    "FlowInputReceivedEvent",
    "FlowInputRequestedEvent",
    "FlowPausedEvent",
    "FlowStartedEvent",
    "HumanFeedbackReceivedEvent",
    "HumanFeedbackRequestedEvent",
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


class FlowInputRequestedEvent(BaseEvent):
    """``self.ask(message)`` is about to ask its input provider."""

    event_type: ClassVar[str] = "flow_input_requested"
    flow_name: str
    method_name: str | None = None
    message: str
    metadata: dict[str, Any] | None = None


class FlowInputReceivedEvent(BaseEvent):
    """The answer to ``self.ask(message)`` (``response`` None: timed out or no answer)."""

    event_type: ClassVar[str] = "flow_input_received"
    flow_name: str
    method_name: str | None = None
    message: str
    response: str | None = None
    metadata: dict[str, Any] | None = None
    response_metadata: dict[str, Any] | None = None


class HumanFeedbackRequestedEvent(BaseEvent):
    """A ``@human_feedback`` method shows its output to a person."""

    event_type: ClassVar[str] = "human_feedback_requested"
    flow_name: str
    method_name: str
    output: Any = None
    message: str
    emit: list[str] | None = None


class HumanFeedbackReceivedEvent(BaseEvent):
    """The person's feedback on a ``@human_feedback`` method (``outcome``: the label it chose)."""

    event_type: ClassVar[str] = "human_feedback_received"
    flow_name: str
    method_name: str
    feedback: str
    outcome: str | None = None
