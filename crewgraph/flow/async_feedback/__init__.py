"""CrewAI's ``crewai.flow.async_feedback``: feedback providers, and pausing for feedback."""

from crewgraph.flow.async_feedback.providers import ConsoleProvider
from crewgraph.flow.async_feedback.types import (
    HumanFeedbackPending,
    HumanFeedbackProvider,
    PendingFeedbackContext,
)

__all__ = ["ConsoleProvider", "HumanFeedbackPending", "HumanFeedbackProvider", "PendingFeedbackContext"]
