"""What a flow method needs to pause for a person, and to be replayed on resume.

``InputRequired`` is raised (by ``Flow.ask`` with a persisted input provider)
inside a method that needs an answer nobody has given yet; the method's node
catches it and returns a *pending* result instead of an output -- pausing is a
node outcome, the scheduler checkpoints the run as paused. :data:`CURRENT_CALL`
tells code running inside a method which execution it is (``method#n``), so
the n-th ``ask`` of that execution finds its stored answer when the run is
resumed and the method runs again from its start.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CURRENT_CALL", "RERUN", "InputRequired", "MethodCall", "current_call"]


class _Rerun:
    def __repr__(self) -> str:
        return "RERUN"


RERUN: Any = _Rerun()
"""In a replay queue: this execution's output was not stored, so it runs again."""


class InputRequired(Exception):
    """Raised inside a flow method to pause the run until ``question`` is answered.

    ``key`` identifies the question within the run (``method#execution#ask``);
    ``extra`` is kept with the pending question (e.g. ``@human_feedback`` stores
    the method's output so it does not run again on resume).
    """

    def __init__(self, question: str, key: str, extra: dict[str, Any] | None = None) -> None:
        super().__init__(question)
        self.question = question
        self.key = key
        self.extra = dict(extra or {})


@dataclass
class MethodCall:
    """One execution of one flow method: which, the how-many-th, its asks so far."""

    method: str
    execution: int
    answers: dict[str, str] = field(default_factory=dict)
    prepared: dict[str, Any] = field(default_factory=dict)
    pausable: bool = False
    asks: int = 0
    asking: str | None = None
    """The key of the question being asked right now (set by ``Flow.ask``, read by a
    provider that pauses for it)."""

    @property
    def key(self) -> str:
        return f"{self.method}#{self.execution}"

    def next_ask_key(self) -> str:
        key = f"{self.key}#{self.asks}"
        self.asks += 1
        return key


CURRENT_CALL: ContextVar[MethodCall | None] = ContextVar("crewgraph_flow_call", default=None)


def current_call() -> MethodCall | None:
    """The flow method execution the calling code runs inside, or None."""
    return CURRENT_CALL.get()
