"""Full garbage collections are spaced out while a run builds and walks its graph.

Why: a run keeps a few objects per node (its record, its output, the plan's node), and
CPython starts a *full* collection, which walks every tracked object of the process,
each time the long-lived objects have grown by a quarter. On a 10,000-task crew that
was five full passes over ~450,000 objects during the run and two during its compile:
a fifth of the kickoff's CPU, and the reason the per-task cost grew with the task
count (issue 28). Young collections (generations 0 and 1) are bounded by what was
allocated since the last one, so they stay as they are: the short-lived cycles a run
makes (tracebacks, coroutine frames) are still collected at once.

While at least one run is active (nested and concurrent runs share one scope, counted),
the third threshold is raised from CPython's 10 to ``FULL_EVERY`` young passes, so a
full collection still happens on a long run or a server that always has a run going,
just 100 times less often; the last run to leave restores the thresholds it found,
unless someone changed them meanwhile (theirs then stand). Nothing here disables the
collector or freezes objects, and a process whose collector is off is left alone.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["FULL_EVERY", "active", "run_collector"]

FULL_EVERY = 1000
"""Generation-1 passes between full collections while a run is active (CPython: 10)."""

_lock = threading.Lock()
_depth = 0
_saved: tuple[int, int, int] | None = None
_ours: tuple[int, int, int] | None = None


@contextmanager
def run_collector() -> Iterator[None]:
    """Space out full collections until the last concurrent run leaves (see the module)."""
    _enter()
    try:
        yield
    finally:
        _leave()


def _enter() -> None:
    global _depth, _saved, _ours
    with _lock:
        _depth += 1
        if _depth > 1:
            return
        saved = gc.get_threshold()
        if saved[0] > 0 and saved[2] < FULL_EVERY:
            _saved, _ours = saved, (saved[0], saved[1], FULL_EVERY)
            gc.set_threshold(*_ours)


def _leave() -> None:
    global _depth, _saved, _ours
    with _lock:
        _depth -= 1
        if _depth > 0:
            return
        if _saved is not None and gc.get_threshold() == _ours:
            gc.set_threshold(*_saved)
        _saved = _ours = None


def active() -> bool:
    """Whether a run's scope is open (for tests and diagnostics)."""
    return _depth > 0
