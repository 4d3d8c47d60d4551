"""CrewAI's ``crewai.flow.async_feedback.providers``: the console provider.

:class:`ConsoleProvider` is the default answerer of both ``Flow.ask``
(``request_input``) and ``@human_feedback`` (``request_feedback``): it prints
the question and reads one line from the terminal. The end of input (stdin
closed, nobody there) is no answer: ``None`` for ``ask``, empty feedback for a
review (which takes the decorator's ``default_outcome``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crewgraph.flow.async_feedback.types import PendingFeedbackContext
    from crewgraph.flow.flow import Flow

__all__ = ["ConsoleProvider"]

_RULE = "=" * 50


class ConsoleProvider:
    """Ask on the terminal. ``verbose`` frames the question; otherwise a plain prompt."""

    def __init__(self, verbose: bool = True) -> None:
        self.verbose = verbose

    def request_input(self, message: str, flow: Flow[Any], metadata: dict[str, Any] | None = None) -> str | None:
        if self.verbose:
            print(f"\n{message}", flush=True)
            prompt = "> "
        else:
            prompt = f"{message} "
        try:
            return input(prompt).strip()
        except EOFError:
            return None

    def request_feedback(self, context: PendingFeedbackContext, flow: Flow[Any]) -> str:
        if self.verbose:
            print(f"\n{_RULE}\nOUTPUT FOR REVIEW:\n{_RULE}\n{context.method_output}\n{_RULE}\n", flush=True)
            print(f"{context.message}\n(Press Enter to skip, or type your feedback)\n", flush=True)
            prompt = "Your feedback: "
        else:
            prompt = f"{context.message}\n\n{context.method_output}\n"
        try:
            return input(prompt).strip()
        except EOFError:
            return ""

    def __repr__(self) -> str:
        return f"ConsoleProvider(verbose={self.verbose})"
