"""Events of checkpointing (CrewAI's ``checkpoint_events``), published by crewgraph's store.

crewgraph saves every finished node (a task, a flow method) as it finishes, so one
checkpoint is one node save: ``CheckpointStartedEvent`` / ``CheckpointCompletedEvent``
(``checkpoint_id`` is ``<run id>/<node id>#<seq>``) or ``CheckpointFailedEvent`` around
it, with ``trigger`` the node id. ``CheckpointPrunedEvent`` follows a new run that pruned
older ones (``max_checkpoints``); ``CheckpointRestore*Event`` surround reading a run's saved
nodes back for a resume; ``CheckpointFork*Event`` surround forking a run into a branch.
``location`` is the store's file; ``provider`` is ``"sqlite"``.
"""

from __future__ import annotations

from crewgraph.events.base import BaseEvent

__all__ = [
    "CheckpointBaseEvent",
    "CheckpointCompletedEvent",
    "CheckpointFailedEvent",
    "CheckpointForkBaseEvent",
    "CheckpointForkCompletedEvent",
    "CheckpointForkFailedEvent",
    "CheckpointForkStartedEvent",
    "CheckpointPrunedEvent",
    "CheckpointRestoreBaseEvent",
    "CheckpointRestoreCompletedEvent",
    "CheckpointRestoreFailedEvent",
    "CheckpointRestoreStartedEvent",
    "CheckpointStartedEvent",
]


class CheckpointBaseEvent(BaseEvent):
    """The base of the checkpoint-write events. ``branch``: the run's branch when it is a
    fork; ``parent_id``: the run it was forked from."""

    type: str = "checkpoint"
    location: str
    provider: str
    trigger: str | None = None
    branch: str | None = None
    parent_id: str | None = None


class CheckpointStartedEvent(CheckpointBaseEvent):
    type: str = "checkpoint_started"


class CheckpointCompletedEvent(CheckpointBaseEvent):
    type: str = "checkpoint_completed"
    checkpoint_id: str
    duration_ms: float


class CheckpointFailedEvent(CheckpointBaseEvent):
    type: str = "checkpoint_failed"
    error: str


class CheckpointPrunedEvent(CheckpointBaseEvent):
    """``removed_count`` older runs of the same name were deleted to keep ``max_checkpoints``."""

    type: str = "checkpoint_pruned"
    removed_count: int
    max_checkpoints: int


class CheckpointForkBaseEvent(BaseEvent):
    """The base of the fork events: ``parent_checkpoint_id`` is the run forked from."""

    type: str = "checkpoint_fork"
    branch: str
    parent_branch: str | None = None
    parent_checkpoint_id: str | None = None


class CheckpointForkStartedEvent(CheckpointForkBaseEvent):
    type: str = "checkpoint_fork_started"


class CheckpointForkCompletedEvent(CheckpointForkBaseEvent):
    """``checkpoint_id``: the new run's id."""

    type: str = "checkpoint_fork_completed"
    checkpoint_id: str | None = None
    duration_ms: float = 0.0


class CheckpointForkFailedEvent(CheckpointForkBaseEvent):
    type: str = "checkpoint_fork_failed"
    error: str


class CheckpointRestoreBaseEvent(BaseEvent):
    type: str = "checkpoint_restore"
    location: str
    provider: str | None = None


class CheckpointRestoreStartedEvent(CheckpointRestoreBaseEvent):
    type: str = "checkpoint_restore_started"


class CheckpointRestoreCompletedEvent(CheckpointRestoreBaseEvent):
    """``checkpoint_id``: the run restored; ``restored_count``: the saved nodes read back."""

    type: str = "checkpoint_restore_completed"
    checkpoint_id: str
    branch: str | None = None
    parent_id: str | None = None
    duration_ms: float
    restored_count: int = 0


class CheckpointRestoreFailedEvent(CheckpointRestoreBaseEvent):
    type: str = "checkpoint_restore_failed"
    error: str
