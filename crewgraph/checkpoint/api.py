"""Module-level helpers for the CLI (``crewgraph checkpoints list|delete``).

They open the store, do one thing and close it, so a CLI command never
keeps the database open. Listing a file that does not exist returns nothing
instead of creating an empty database as a side effect.
"""

from __future__ import annotations

from pathlib import Path

from crewgraph.checkpoint.config import default_checkpoint_path
from crewgraph.checkpoint.info import CheckpointInfo
from crewgraph.checkpoint.location import (
    Location,
    display,
    env_store_url,
    is_store_url,
    open_checkpoint_store,
)
from crewgraph.errors import CheckpointError

__all__ = ["delete_checkpoint", "list_checkpoints"]


def _resolve(path: str | Path | None) -> Location:
    """The store: ``path`` (a file or a postgresql:// URL), else $CREWGRAPH_STORE_URL, else the default file."""
    if path is None:
        return env_store_url() or default_checkpoint_path()
    return str(path) if is_store_url(path) else Path(path).expanduser()


def list_checkpoints(
    path: str | Path | None = None, *, name: str | None = None, limit: int | None = 100
) -> list[CheckpointInfo]:
    """Runs in the checkpoint database at ``path`` (default location if None), newest first."""
    db = _resolve(path)
    if not is_store_url(db) and not Path(db).exists():
        return []
    with open_checkpoint_store(db) as store:
        return store.list_runs(name=name, limit=limit)


def delete_checkpoint(run_id: str, path: str | Path | None = None) -> None:
    """Delete one run's checkpoints; :class:`CheckpointError` if there is no such run."""
    db = _resolve(path)
    if not is_store_url(db) and not Path(db).exists():
        raise CheckpointError(
            f"no run {run_id!r}: there is no checkpoint database at {display(db)!r} "
            "(set CREWGRAPH_STORAGE_DIR or pass the path the run used)"
        )
    with open_checkpoint_store(db) as store:
        store.delete_run(run_id)
