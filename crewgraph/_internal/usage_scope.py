"""Token totals of everything that ran inside a scope (a flow kickoff), as a context variable.

A flow opens a scope while it runs; every LLM call made inside it -- agent
steps of crews the methods kick off, memory analysis, direct ``llm.call(...)``
in a method -- adds its usage to every open scope. A context variable follows
the work into ``asyncio.to_thread`` workers and nested ``asyncio.run`` calls,
like the run id in :mod:`crewgraph._internal.run_context`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crewgraph.outputs import UsageMetrics

__all__ = ["UsageTotal", "record_usage", "usage_scope"]


class UsageTotal:
    """A thread-safe running sum of UsageMetrics."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._parts: list[Any] = []

    def add(self, usage: UsageMetrics) -> None:
        with self._lock:
            self._parts.append(usage)

    def total(self) -> UsageMetrics:
        from crewgraph.outputs import UsageMetrics

        out = UsageMetrics()
        with self._lock:
            for part in self._parts:
                out = out.add(part)
        return out


_SCOPES: ContextVar[tuple[UsageTotal, ...]] = ContextVar("crewgraph_usage_scopes", default=())


def record_usage(usage: UsageMetrics | None) -> None:
    """Add one LLM call's usage to every open scope (a no-op outside any)."""
    if usage is None:
        return
    for scope in _SCOPES.get():
        scope.add(usage)


@contextmanager
def usage_scope(total: UsageTotal) -> Iterator[UsageTotal]:
    """Within the block (and work started from it), LLM usage is added to ``total``."""
    token = _SCOPES.set((*_SCOPES.get(), total))
    try:
        yield total
    finally:
        _SCOPES.reset(token)
