"""Events of flows and their methods."""

from __future__ import annotations

from typing import Any

from crewgraph.events.base import BaseEvent

__all__ = [
    "FlowCreatedEvent",
    "FlowEvent",
    "FlowFailedEvent",
    "FlowFinishedEvent",
    "FlowInputReceivedEvent",
    "FlowInputRequestedEvent",
    "FlowPausedEvent",
    "FlowPlotEvent",
    "FlowStartedEvent",
    "HumanFeedbackReceivedEvent",
    "HumanFeedbackRequestedEvent",
    "MethodExecutionFailedEvent",
    "MethodExecutionFinishedEvent",
    "MethodExecutionStartedEvent",
]


class FlowEvent(BaseEvent):
    """The base of the flow and flow-method events: subscribe to it for all of a flow's events."""

    type: str = "flow"
    flow_name: str


class FlowCreatedEvent(FlowEvent):
    """A flow object was built (``Flow()``): published from its constructor."""

    type: str = "flow_created"


class FlowPlotEvent(FlowEvent):
    """``flow.plot()`` drew the flow's graph."""

    type: str = "flow_plot"


class FlowStartedEvent(FlowEvent):
    type: str = "flow_started"
    flow_name: str
    inputs: dict[str, Any] | None = None


class FlowFinishedEvent(FlowEvent):
    type: str = "flow_finished"
    flow_name: str
    result: Any = None
    state: Any = None
    """A dict snapshot of the flow state at the end (as CrewAI's)."""
    duration_ms: float = 0.0


class FlowFailedEvent(FlowEvent):
    """The flow run raised: ``error`` is the exception."""

    type: str = "flow_failed"
    flow_name: str
    error: Any


class FlowPausedEvent(FlowEvent):
    """The run stopped to wait for a person: resume it with ``Flow.resume(run_id, answer)``."""

    type: str = "flow_paused"
    flow_name: str
    questions: list[str] = []


class MethodExecutionStartedEvent(FlowEvent):
    """A flow method is about to run. ``state``: a dict snapshot of the flow state as the
    method starts (a structured state dumped, as CrewAI's); ``params``: the arguments it is called with (``{"_0": trigger output}``)."""

    type: str = "method_execution_started"
    flow_name: str
    method_name: str
    state: Any = None
    params: dict[str, Any] | None = None


class MethodExecutionFinishedEvent(FlowEvent):
    """A flow method returned; ``state`` is a dict snapshot of the flow state right after it."""

    type: str = "method_execution_finished"
    flow_name: str
    method_name: str
    result: Any = None
    state: Any = None
    duration_ms: float = 0.0


class MethodExecutionFailedEvent(FlowEvent):
    type: str = "method_execution_failed"
    flow_name: str
    method_name: str
    error: str


class FlowInputRequestedEvent(FlowEvent):
    """``self.ask(message)`` is about to ask its input provider."""

    type: str = "flow_input_requested"
    flow_name: str
    method_name: str | None = None
    message: str
    metadata: dict[str, Any] | None = None


class FlowInputReceivedEvent(FlowEvent):
    """The answer to ``self.ask(message)`` (``response`` None: timed out or no answer)."""

    type: str = "flow_input_received"
    flow_name: str
    method_name: str | None = None
    message: str
    response: str | None = None
    metadata: dict[str, Any] | None = None
    response_metadata: dict[str, Any] | None = None


class HumanFeedbackRequestedEvent(FlowEvent):
    """A ``@human_feedback`` method shows its output to a person."""

    type: str = "human_feedback_requested"
    flow_name: str
    method_name: str
    output: Any = None
    message: str
    emit: list[str] | None = None
    request_id: str | None = None


class HumanFeedbackReceivedEvent(FlowEvent):
    """The person's feedback on a ``@human_feedback`` method (``outcome``: the label it chose)."""

    type: str = "human_feedback_received"
    flow_name: str
    method_name: str
    feedback: str
    outcome: str | None = None
    request_id: str | None = None
