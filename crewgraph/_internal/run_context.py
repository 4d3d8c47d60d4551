"""The run a piece of code is executing inside of, as a context variable.

A flow sets it while its scheduler runs; a crew kicked off from a flow
method reads it and reuses the flow's run id, so the crew's events (and the
nodes it runs) are stamped with the flow's run id and a listener can follow
one kickoff end to end. A context variable, not a global: it follows the
task that set it into ``asyncio.to_thread`` workers and nested
``asyncio.run`` calls, and two flows running side by side never see each
other's id.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["ambient_run_key", "current_run_id", "run_key_scope", "run_scope"]

_RUN_ID: ContextVar[str | None] = ContextVar("crewgraph_run_id", default=None)


def current_run_id() -> str | None:
    """The run id of the enclosing flow run, or ``None`` outside of one."""
    return _RUN_ID.get()


@contextmanager
def run_scope(run_id: str) -> Iterator[None]:
    """Within the block (and in tasks and threads started from it) the current run is ``run_id``."""
    token = _RUN_ID.set(run_id)
    try:
        yield
    finally:
        _RUN_ID.reset(token)


_RUN_KEY: ContextVar[str | None] = ContextVar("crewgraph_run_key", default=None)


def ambient_run_key() -> str | None:
    """The run key a command gave every kickoff it makes (``crewgraph run --run-key``), or None."""
    return _RUN_KEY.get()


@contextmanager
def run_key_scope(run_key: str | None) -> Iterator[None]:
    """Within the block, a kickoff given neither ``run_key`` nor ``from_checkpoint`` uses ``run_key``
    (so a project's own ``run()`` script gets the key ``crewgraph run --run-key`` was given)."""
    token = _RUN_KEY.set(run_key)
    try:
        yield
    finally:
        _RUN_KEY.reset(token)
