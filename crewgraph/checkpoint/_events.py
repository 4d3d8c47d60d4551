"""Publishing CrewAI's checkpoint events from the store (built only when someone listens)."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any

from crewgraph.events.base import BaseEvent
from crewgraph.events.bus import crewgraph_event_bus

__all__ = ["PROVIDER", "emit_checkpoint", "listening", "records_crewai_checkpoints", "restore_outputs",
           "save_with_events", "writes_crewai_records"]

PROVIDER = "sqlite"
"""The ``provider`` the events name: crewgraph's store is one SQLite file."""


_CREWAI_RUNS: OrderedDict[str, None] = OrderedDict()
_CREWAI_RUNS_KEPT = 1024
_runs_lock = threading.Lock()


def records_crewai_checkpoints(run_id: str) -> None:
    """Run ``run_id`` writes CrewAI's checkpoint records (``crewgraph.state.writer``): those are
    its checkpoints, so its node saves publish no checkpoint events of their own."""
    with _runs_lock:
        _CREWAI_RUNS[run_id] = None
        while len(_CREWAI_RUNS) > _CREWAI_RUNS_KEPT:
            _CREWAI_RUNS.popitem(last=False)


def writes_crewai_records(run_id: str) -> bool:
    return run_id in _CREWAI_RUNS


def listening(*event_types: type[BaseEvent]) -> bool:
    """Whether any of these events has a listener (else none is built)."""
    return any(crewgraph_event_bus.has_handlers(t) for t in event_types)


def emit_checkpoint(source: Any, event_type: type[BaseEvent], run_id: str | None = None, **fields: Any) -> None:
    """Build and publish ``event_type(**fields)`` when someone listens for it."""
    if not crewgraph_event_bus.has_handlers(event_type):
        return
    event = event_type(**fields)
    event.run_id = run_id
    crewgraph_event_bus.emit(source, event)


def save_with_events(store: Any, run_id: str, node_id: str, output: Any, info: dict[str, Any] | None) -> None:
    """``store.save_node`` surrounded by CrewAI's checkpoint events (one node save is one checkpoint)."""
    from crewgraph.events.checkpoint_events import (
        CheckpointCompletedEvent,
        CheckpointFailedEvent,
        CheckpointStartedEvent,
    )

    where = {"location": str(store.path), "provider": PROVIDER, "trigger": node_id}
    emit_checkpoint(store, CheckpointStartedEvent, run_id, **where)
    started = time.perf_counter()
    try:
        seq = store._save(run_id, node_id, output, info)
    except Exception as exc:
        emit_checkpoint(store, CheckpointFailedEvent, run_id, **where, error=str(exc))
        raise
    emit_checkpoint(store, CheckpointCompletedEvent, run_id, **where, checkpoint_id=f"{run_id}/{node_id}#{seq}",
                    duration_ms=(time.perf_counter() - started) * 1000)


def restore_outputs(store: Any, run_id: str) -> dict[str, Any]:
    """``store.completed(run_id)`` for a resume, surrounded by CrewAI's restore events."""
    from crewgraph.events.checkpoint_events import (
        CheckpointRestoreCompletedEvent,
        CheckpointRestoreFailedEvent,
        CheckpointRestoreStartedEvent,
    )

    if not listening(CheckpointRestoreStartedEvent, CheckpointRestoreCompletedEvent, CheckpointRestoreFailedEvent):
        return dict(store.completed(run_id))
    where = {"location": str(store.path), "provider": PROVIDER}
    emit_checkpoint(store, CheckpointRestoreStartedEvent, run_id, **where)
    started = time.perf_counter()
    try:
        restored = dict(store.completed(run_id))
        info = store.get_run(run_id)
    except Exception as exc:
        emit_checkpoint(store, CheckpointRestoreFailedEvent, run_id, **where, error=str(exc))
        raise
    emit_checkpoint(store, CheckpointRestoreCompletedEvent, run_id, **where, checkpoint_id=run_id,
                    branch=getattr(info, "branch", None), parent_id=getattr(info, "parent_run_id", None),
                    duration_ms=(time.perf_counter() - started) * 1000, restored_count=len(restored))
    return restored
