"""Writing CrewAI's checkpoints of a run: one :class:`RuntimeState` record per ``on_events`` trigger.

crewgraph's store already holds every finished task and flow method of a run
(that is what a resume reads). A run configured with CrewAI's
``CheckpointConfig`` also gets CrewAI's checkpoint records, through its
provider, at the triggers its ``on_events`` names -- ``task_completed`` for a
crew's tasks, ``method_execution_finished`` for a flow's methods (and
``task_completed``, the default, there too: a flow checkpoints after each
method), the kickoff's end -- each naming the run and what had completed.
``restore_from=<that checkpoint>`` then resumes the run from the store.

:meth:`CheckpointWriter.write_checkpoint` is the one place they are written
(where ``Checkpoint*Event``\\s belong).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from crewgraph.checkpoint._events import emit_checkpoint, records_crewai_checkpoints
from crewgraph.events.checkpoint_events import (
    CheckpointCompletedEvent,
    CheckpointFailedEvent,
    CheckpointPrunedEvent,
    CheckpointStartedEvent,
)

__all__ = ["CheckpointWriter", "crewai_config", "writer_for"]

_FLOW_DEFAULT = frozenset({"task_completed", "method_execution_finished"})


def crewai_config(*candidates: Any) -> Any:
    """The first CrewAI ``CheckpointConfig`` among ``candidates`` (or behind a store config)."""
    for value in candidates:
        if callable(getattr(value, "to_store_config", None)):
            return value
        found = getattr(value, "crewai", None)
        if callable(getattr(found, "to_store_config", None)):
            return found
    return None


class CheckpointWriter:
    """CrewAI's checkpoints of one run of ``entity`` (a crew, flow or agent)."""

    def __init__(self, config: Any, entity: Any, store: str | Path, run_id: str) -> None:
        self.config = config
        self.entity = entity
        self.store = str(store)
        self.run_id = run_id
        self.parent_id, self.branch = config.lineage()
        self.completed: list[str] = []
        self.events: dict[str, Any] = {}
        self.written: list[str] = []
        self._lock = threading.Lock()
        records_crewai_checkpoints(run_id)

    def wants(self, trigger: str) -> bool:
        events = set(self.config.on_events)
        if "*" in events or trigger in events:
            return True
        return trigger == "method_execution_finished" and bool(events & _FLOW_DEFAULT)

    def write_checkpoint(self, trigger: str, done: str | None = None) -> str | None:
        """Record that ``done`` (a task or method name) finished; write a checkpoint if
        ``trigger`` is one of the config's ``on_events``. The new checkpoint's location."""
        from crewgraph.state.runtime import RuntimeState

        with self._lock:
            if done is not None:
                self.completed.append(done)
            if not self.wants(trigger):
                return None
            event_id = f"{len(self.events) + 1}"
            self.events[event_id] = {"type": trigger, "name": done, "timestamp": time.time()}
            state = RuntimeState(root=[self.entity])
            state._provider = self.config.provider
            state._parent_id = self.parent_id
            state._branch = self.branch
            state._event_record = {"nodes": dict(self.events)}
            state._crewgraph = {"store": self.store, "run_id": self.run_id, "trigger": trigger,
                                "completed": list(self.completed)}
            location = self.config.write_location()
            said = _Said(self, location, trigger)
            try:
                written = state.checkpoint(location)
            except Exception as exc:
                said.failed(exc)
                raise
            said.completed(state._checkpoint_id or written)
            self.parent_id = state._checkpoint_id
            if self.config.max_checkpoints:
                removed = self.config.provider.prune(location, self.config.max_checkpoints, branch=self.branch)
                said.pruned(removed, self.config.max_checkpoints)
            self.written.append(written)
            return written


class _Said:
    """CrewAI's ``Checkpoint*Event``s of one record write (built only for a listener)."""

    def __init__(self, writer: CheckpointWriter, location: str, trigger: str) -> None:
        self.writer = writer
        self.fields = {"location": str(location), "trigger": trigger, "branch": writer.branch,
                       "parent_id": writer.parent_id,
                       "provider": str(getattr(writer.config.provider, "provider_type", "")) or "json"}
        self.started = time.perf_counter()
        emit_checkpoint(writer.entity, CheckpointStartedEvent, writer.run_id, **self.fields)

    def failed(self, exc: BaseException) -> None:
        emit_checkpoint(self.writer.entity, CheckpointFailedEvent, self.writer.run_id, **self.fields,
                        error=f"{type(exc).__name__}: {exc}")

    def completed(self, checkpoint_id: str) -> None:
        emit_checkpoint(self.writer.entity, CheckpointCompletedEvent, self.writer.run_id, **self.fields,
                        checkpoint_id=checkpoint_id, duration_ms=(time.perf_counter() - self.started) * 1000)

    def pruned(self, removed: Any, kept: int) -> None:
        if isinstance(removed, int) and removed > 0:
            emit_checkpoint(self.writer.entity, CheckpointPrunedEvent, self.writer.run_id, **self.fields,
                            removed_count=removed, max_checkpoints=kept)


def writer_for(entity: Any, run_id: str, store: str | Path | None, *candidates: Any) -> CheckpointWriter | None:
    """A writer when one of ``candidates`` is CrewAI's config (else None: nothing to write)."""
    config = crewai_config(*candidates)
    if config is None:
        return None
    return CheckpointWriter(config, entity, store if store is not None else config.database, run_id)
