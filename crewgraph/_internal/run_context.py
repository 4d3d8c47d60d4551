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

__all__ = ["current_run_id", "run_scope"]

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
