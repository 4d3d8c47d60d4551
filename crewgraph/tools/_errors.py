"""The signal a tool node raises to be retried by the scheduler."""

from __future__ import annotations

from typing import Any

__all__ = ["RetryableToolError"]


class RetryableToolError(Exception):
    """A tool returned ``ToolFailure(retryable=True)`` and attempts remain.

    Private to the tool node: ``ToolCallNode``'s default retry policy retries
    exactly this, so a transient failure (rate limit, 503) is tried again with
    backoff instead of reaching the model. On the last attempt the node records
    the failure rather than raising.
    """

    retryable = True

    def __init__(self, tool_name: str, failure: Any, attempt: int) -> None:
        self.tool_name = tool_name
        self.failure = failure
        self.attempt = attempt
        message = getattr(failure, "message", str(failure))
        super().__init__(f"tool {tool_name!r} reported a retryable failure (attempt {attempt}): {message}")
