"""Checkpoints: a durable record of every finished node, so a crashed run resumes.

``Crew(checkpoint=True)`` saves each node's output to a SQLite file as soon
as the node finishes; ``Crew.from_checkpoint(CheckpointConfig(run_id=...))``
restores those outputs and runs only what is left; ``Crew.fork`` copies a
run's outputs under a new run id to explore another branch. A node that was
interrupted mid-execution re-executes from its start on resume (its output
was never saved, and its side effects are not transactional with ours).
Only the standard library's ``sqlite3`` is used.
"""

from crewgraph.checkpoint._sqlite_leases import SQLiteLeases
from crewgraph.checkpoint.api import delete_checkpoint, list_checkpoints
from crewgraph.checkpoint.base import Checkpointer
from crewgraph.checkpoint.config import STORAGE_DIR_ENV, CheckpointConfig, default_checkpoint_path
from crewgraph.checkpoint.info import RUN_STATUSES, CheckpointInfo, NodeCheckpoint
from crewgraph.checkpoint.sqlite_store import CheckpointWarning, SQLiteCheckpointStore
from crewgraph.errors import CheckpointError

__all__ = [
    "RUN_STATUSES",
    "STORAGE_DIR_ENV",
    "CheckpointConfig",
    "CheckpointError",
    "CheckpointInfo",
    "CheckpointWarning",
    "Checkpointer",
    "NodeCheckpoint",
    "SQLiteCheckpointStore",
    "SQLiteLeases",
    "default_checkpoint_path",
    "delete_checkpoint",
    "list_checkpoints",
]
