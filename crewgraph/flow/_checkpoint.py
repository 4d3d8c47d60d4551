"""CrewAI's checkpoint API on flows (``crewgraph.state.CheckpointConfig``), over the flow journal.

A flow's durable record is its run journal in a
:class:`~crewgraph.flow.persistence.SQLiteFlowPersistence` (what ``@persist``,
``crewgraph flows list|resume`` and the web UI read). CrewAI's config only
says where that store is: ``Flow(checkpoint=CheckpointConfig(location=...))``
persists the flow there (the provider places the database: see
:mod:`crewgraph.state.provider`); ``Flow.from_checkpoint(config)`` and
``kickoff(from_checkpoint=config)`` continue the run ``restore_from`` names (a
run id, or a location: the latest unfinished run of the class), without
running a completed method again; ``Flow.fork(config, branch)`` copies that
run under a new run id first, so the original stays as it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crewgraph.flow.flow import Flow
    from crewgraph.flow.persistence import SQLiteFlowPersistence

__all__ = ["apply_checkpoint", "checkpoint_store", "checkpoint_writer", "fork_run", "restore_run"]


def checkpoint_store(config: Any, restoring: bool = False) -> SQLiteFlowPersistence:
    """The flow store a CrewAI CheckpointConfig points at."""
    from crewgraph.flow.persistence import SQLiteFlowPersistence

    if not callable(getattr(config, "to_store_config", None)):
        raise TypeError(f"expected a crewgraph.state.CheckpointConfig, got {type(config).__name__}")
    return SQLiteFlowPersistence(config.restore_database() if restoring else config.database)


def apply_checkpoint(flow: Flow[Any], setting: Any) -> None:
    """``Flow(checkpoint=...)``: True/False as before; a CheckpointConfig persists to its store."""
    if setting is None or isinstance(setting, bool):
        if setting is not None:
            flow.checkpoint = setting
        return
    flow._persistence = flow._persistence or checkpoint_store(setting)
    flow.checkpoint = True
    flow.__dict__["_crewai_checkpoint"] = setting  # its provider also writes CrewAI's checkpoint records


def restore_run(flow: Flow[Any], config: Any) -> str:
    """Bind ``flow`` to the run ``config.restore_from`` names (a location: its latest unfinished run)."""
    from crewgraph.flow._run import RESUMABLE

    store = checkpoint_store(config, restoring=True)
    flow._persistence = store
    flow.checkpoint = True
    flow.__dict__["_crewai_checkpoint"] = config
    run_id = config.restore_run_id()
    if run_id is None:
        name = flow.flow_name
        runs = [r for r in store.list_runs(limit=1000) if r.get("flow_name") == name and r.get("status") in RESUMABLE]
        if not runs:
            raise ValueError(f"no unfinished run of flow {name!r} in {store!r} to restore")
        run_id = str(runs[0]["run_id"])
    elif store.load_run(run_id) is None:
        raise ValueError(f"no flow run {run_id!r} in {store!r} (restore_from names a run id)")
    return run_id


def checkpoint_writer(flow: Flow[Any], run_id: str) -> Any:
    """The writer of CrewAI's checkpoint records of this run, when the flow has CrewAI's config."""
    config = flow.__dict__.get("_crewai_checkpoint")
    if config is None:
        return None
    from crewgraph.state.writer import writer_for

    store = getattr(flow._persistence, "location", None)
    return writer_for(flow, run_id, store, config)


def fork_run(store: SQLiteFlowPersistence, run_id: str, branch: str | None, upto: int | None = None,
             state: dict[str, Any] | None = None) -> str:
    """Copy run ``run_id`` (its record and completed methods; the first ``upto`` of them when
    forking from one of CrewAI's checkpoints, taken then) under a new run id."""
    from crewgraph.ids import new_run_id

    record = store.load_run(run_id)
    if record is None:
        raise ValueError(f"no flow run {run_id!r} in {store!r} to fork")
    new_id = new_run_id()
    steps = store.load_steps(run_id)
    if upto is not None:
        steps = steps[:upto]
    if state is None:
        state = store.load_state(str(record["flow_uuid"])) or {}
    for seq, (method, blob) in enumerate(steps):
        store.save_step(new_id, seq, method, blob, str(record["flow_uuid"]), state)
    fields = {k: v for k, v in record.items() if k not in ("run_id", "flow_uuid")}
    status = fields.get("status")
    fields.update(parent_run_id=run_id, branch=branch or f"fork-{new_id[:8]}",
                  status=status if status in ("paused", "failed") else "failed")
    store.save_run(new_id, str(record["flow_uuid"]), fields)
    return new_id
