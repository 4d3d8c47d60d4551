"""CrewAI's ``crewai.flow.async_feedback.types``: feedback that arrives later.

A :class:`HumanFeedbackProvider` collects the feedback a ``@human_feedback``
method asks for. One that cannot answer now (the reviewer is on Slack, a web
page, an email) raises :class:`HumanFeedbackPending` with the
:class:`PendingFeedbackContext`: the flow saves its state and the context to
its persistence (``save_pending_feedback``) and ``kickoff`` returns the
``HumanFeedbackPending``. Later, in any process,
``MyFlow.from_pending(flow_id).resume(feedback)`` continues the run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from crewgraph.flow.flow import Flow

__all__ = ["HumanFeedbackPending", "HumanFeedbackProvider", "PendingFeedbackContext"]


@dataclass
class PendingFeedbackContext:
    """Everything a paused ``@human_feedback`` method needs to be resumed."""

    flow_id: str
    flow_class: str
    """The flow class, ``module.QualifiedName``."""
    method_name: str
    method_output: Any
    message: str
    emit: list[str] | None = None
    default_outcome: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    llm: dict[str, Any] | str | None = None
    requested_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    execution_uuid: str | None = None
    trace_context: tuple[int, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly dict (``requested_at`` as ISO 8601)."""
        return {
            "flow_id": self.flow_id,
            "flow_class": self.flow_class,
            "method_name": self.method_name,
            "method_output": self.method_output,
            "message": self.message,
            "emit": list(self.emit) if self.emit is not None else None,
            "default_outcome": self.default_outcome,
            "metadata": dict(self.metadata),
            "llm": self.llm,
            "requested_at": self.requested_at.isoformat(),
            "execution_uuid": self.execution_uuid,
            "trace_context": list(self.trace_context) if self.trace_context is not None else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PendingFeedbackContext:
        """The context :meth:`to_dict` wrote."""
        when = data.get("requested_at")
        trace = data.get("trace_context")
        return cls(
            flow_id=str(data["flow_id"]),
            flow_class=str(data.get("flow_class", "")),
            method_name=str(data["method_name"]),
            method_output=data.get("method_output"),
            message=str(data.get("message", "")),
            emit=list(data["emit"]) if data.get("emit") is not None else None,
            default_outcome=data.get("default_outcome"),
            metadata=dict(data.get("metadata") or {}),
            llm=data.get("llm"),
            requested_at=datetime.fromisoformat(when) if isinstance(when, str) else (when or datetime.now(UTC)),
            execution_uuid=data.get("execution_uuid"),
            trace_context=(int(trace[0]), int(trace[1])) if trace else None,
        )


class HumanFeedbackPending(Exception):
    """Raised by a provider to pause the flow until the feedback arrives; also what
    ``kickoff`` returns for a run paused that way (``.context.flow_id`` names it)."""

    pending = True
    """Read by crewgraph's CLI and UI, which treat any paused result alike."""

    def __init__(
        self,
        context: PendingFeedbackContext,
        callback_info: dict[str, Any] | None = None,
        message: str | None = None,
    ) -> None:
        self.context = context
        self.callback_info = dict(callback_info or {})
        self.message = message or f"waiting for human feedback on {context.method_name!r} (flow {context.flow_id})"
        self.run_id: str | None = None
        """crewgraph's run id of the paused run (set when ``kickoff`` returns this)."""
        super().__init__(self.message)


@runtime_checkable
class HumanFeedbackProvider(Protocol):
    """Collects the feedback a ``@human_feedback`` method asks for; raises
    :class:`HumanFeedbackPending` when it will arrive later."""

    def request_feedback(self, context: PendingFeedbackContext, flow: Flow[Any]) -> str: ...
