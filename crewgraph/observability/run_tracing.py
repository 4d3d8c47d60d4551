"""Trace one kickoff: the wrapper the crew and flow runners put around a run.

The listener is created before the run has an id; it adopts the id of the first
crew or flow started event its source emits. One listener per run id: a crew
kicked off inside a traced flow shares the flow's run id, so the flow's listener
already turns its events into spans (nested under the method that kicked it
off) and the crew's own listener, if any, stays silent.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from crewgraph.observability.settings import tracing_enabled

__all__ = ["claim_run", "release_run", "traced_run"]

_lock = threading.Lock()
_active: set[str] = set()


def claim_run(run_id: str) -> bool:
    """Whether the caller is now the one listener tracing ``run_id``."""
    with _lock:
        if run_id in _active:
            return False
        _active.add(run_id)
        return True


def release_run(run_id: str) -> None:
    with _lock:
        _active.discard(run_id)


@asynccontextmanager
async def traced_run(source: Any, own: bool | None) -> AsyncIterator[None]:
    """While the block runs, turn the events of the run ``source`` starts into spans, if
    tracing is on (``own``, else ``$CREWGRAPH_TRACING``); every span is ended on the way out."""
    if not tracing_enabled(own):
        yield
        return
    from crewgraph.events.bus import crewgraph_event_bus
    from crewgraph.observability.listener import TracingListener

    listener = TracingListener(source)
    error: BaseException | None = None
    try:
        yield
    except BaseException as exc:
        error = exc
        raise
    finally:
        try:
            await crewgraph_event_bus.adrain()  # the run's last events reach the listener first
        finally:
            listener.close(error)
