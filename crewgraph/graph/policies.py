"""Retry and timeout policies: plain data on each node, applied by the scheduler."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["NO_RETRY", "NO_TIMEOUT", "RetryPolicy", "TimeoutPolicy"]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How the scheduler retries a failing node (tenacity exponential backoff + jitter).

    ``max_attempts=1`` means no retry. Only exceptions that are instances of
    ``retry_on`` are retried; errors marked ``retryable=False`` never are.
    """

    max_attempts: int = 1
    initial_delay: float = 0.5
    max_delay: float = 30.0
    multiplier: float = 2.0
    jitter: float = 0.25
    retry_on: tuple[type[BaseException], ...] = field(default=(Exception,))

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("RetryPolicy.max_attempts must be >= 1")

    def should_retry(self, exc: BaseException) -> bool:
        if getattr(exc, "retryable", True) is False:
            return False
        return isinstance(exc, self.retry_on)


@dataclass(frozen=True, slots=True)
class TimeoutPolicy:
    """Wall-clock limit for one attempt of a node; ``None`` means no limit."""

    seconds: float | None = None


NO_RETRY = RetryPolicy()
"""One attempt: every node's default (immutable, so one instance is shared)."""
NO_TIMEOUT = TimeoutPolicy()
"""No limit: every node's default."""
