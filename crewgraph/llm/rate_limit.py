"""A requests-per-minute limiter shared by LLM clients and the scheduler.

``RPMLimiter(max_rpm)`` keeps a sliding window of the start times of the last
``max_rpm`` requests: a new request may start once the oldest one in the
window is more than ``period`` seconds old. A sliding window (rather than a
fixed per-minute counter) never lets ``2 * max_rpm`` requests through around a
minute boundary, which is what providers actually enforce.

The limiter is standalone on purpose: :class:`crewgraph.llm.LLM` uses one per
instance for its ``max_rpm``, and the scheduler reuses the same class for
agent- and crew-level ``max_rpm``. One instance may be shared by many asyncio
tasks *and* threads at once (a ``threading.Lock`` guards the window; waiting
itself happens outside the lock, with ``asyncio.sleep`` or ``time.sleep``).

Example::

    limiter = RPMLimiter(max_rpm=30)
    await limiter.acquire()      # in async code, before each request
    limiter.acquire_sync()       # in blocking code
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

__all__ = ["RPMLimiter", "set_shared_limiter_factory", "shared_limiter"]


class RPMLimiter:
    """Sliding-window limiter: at most ``max_rpm`` acquisitions per ``period`` seconds.

    ``period`` defaults to 60 seconds (a minute); tests shrink it. ``clock`` is
    the monotonic time source (``time.monotonic``), injectable for tests.
    ``max_rpm=None`` or ``0`` disables limiting so callers need no special case.
    """

    def __init__(
        self,
        max_rpm: int | None,
        *,
        period: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_rpm is not None and max_rpm < 0:
            raise ValueError(f"max_rpm must be positive or None, got {max_rpm}")
        if period <= 0:
            raise ValueError(f"period must be positive, got {period}")
        self.max_rpm = max_rpm or None
        self.period = period
        self._clock = clock
        self._starts: deque[float] = deque()
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        """False when the limiter lets everything through (``max_rpm`` unset)."""
        return self.max_rpm is not None

    def _reserve(self) -> float:
        """Take a slot now and return 0, or return how long to wait before trying again."""
        if self.max_rpm is None:
            return 0.0
        with self._lock:
            now = self._clock()
            horizon = now - self.period
            while self._starts and self._starts[0] <= horizon:
                self._starts.popleft()
            if len(self._starts) < self.max_rpm:
                self._starts.append(now)
                return 0.0
            # The oldest start leaves the window at starts[0] + period.
            return max(self._starts[0] + self.period - now, 1e-3)

    def try_acquire(self) -> bool:
        """Take a slot if one is free right now; never waits."""
        return self._reserve() == 0.0

    async def acquire(self) -> float:
        """Wait (without blocking the event loop) until a request may start.

        Returns the total seconds waited, so callers can report throttling.
        """
        waited = 0.0
        while (delay := self._reserve()) > 0:
            import asyncio

            await asyncio.sleep(delay)
            waited += delay
        return waited

    def acquire_sync(self) -> float:
        """Blocking form of :meth:`acquire` for threads and sync code."""
        waited = 0.0
        while (delay := self._reserve()) > 0:
            time.sleep(delay)
            waited += delay
        return waited

    def in_window(self) -> int:
        """How many requests started within the current window (for diagnostics)."""
        with self._lock:
            horizon = self._clock() - self.period
            return sum(1 for t in self._starts if t > horizon)

    def __repr__(self) -> str:
        return f"RPMLimiter(max_rpm={self.max_rpm!r}, period={self.period!r})"


_SHARED: dict[tuple[str, int | None], RPMLimiter] = {}
_SHARED_LOCK = threading.Lock()
_FACTORY: Callable[[str, int | None], RPMLimiter] | None = None


def set_shared_limiter_factory(factory: Callable[[str, int | None], RPMLimiter] | None) -> None:
    """Where this process's shared limiters come from (None: an ``RPMLimiter`` each).

    A Ray worker sets a factory whose limiters draw on one window per key for the whole
    cluster (:mod:`crewgraph.distributed`); limiters handed out before stay as they are.
    """
    global _FACTORY
    with _SHARED_LOCK:
        _FACTORY = factory
        _SHARED.clear()


def shared_limiter(key: str, max_rpm: int | None) -> RPMLimiter:
    """The process-wide limiter for ``key`` (a model + endpoint) at ``max_rpm``.

    Two clients for the same model on the same server draw on one provider quota,
    so they share one window instead of each allowing ``max_rpm``.
    """
    with _SHARED_LOCK:
        limiter = _SHARED.get((key, max_rpm))
        if limiter is None:
            made = _FACTORY(key, max_rpm) if _FACTORY is not None and max_rpm else RPMLimiter(max_rpm)
            limiter = _SHARED[(key, max_rpm)] = made
        return limiter
