"""Read-only summaries of what a checkpoint store holds (for listings and the CLI)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["RUN_STATUSES", "CheckpointInfo", "NodeCheckpoint"]

RUN_STATUSES = ("running", "completed", "failed", "cancelled", "forked")
"""``running`` until ``finish_run``; a process killed mid-run leaves its run
``running`` (which is exactly the run to resume). ``forked`` marks a run made
by :meth:`SQLiteCheckpointStore.fork` that has not started yet."""


class CheckpointInfo(BaseModel):
    """One run in the store.

    ``nodes_completed`` counts the nodes a resume would restore (nodes whose
    output could not be pickled are saved as markers and are not counted:
    they re-run). ``parent_run_id``/``branch`` record fork lineage.
    """

    model_config = ConfigDict(frozen=True)

    run_id: str
    name: str
    status: str
    created_at: datetime
    updated_at: datetime
    nodes_completed: int = 0
    parent_run_id: str | None = None
    branch: str | None = None
    error: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict)


class NodeCheckpoint(BaseModel):
    """One saved node output (without the output itself, which may be large).

    ``restorable`` is False for an unpicklable output saved as a marker
    (``info["checkpoint_skipped"]`` says why); such a node re-runs on resume.
    """

    model_config = ConfigDict(frozen=True)

    node_id: str
    seq: int
    saved_at: datetime
    restorable: bool
    info: dict[str, Any] = Field(default_factory=dict)
