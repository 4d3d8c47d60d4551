"""``CheckpointConfig``: where checkpoints live and which run to resume or fork.

The default location follows the rest of crewgraph's local storage: under
``$CREWGRAPH_STORAGE_DIR`` when that is set (so one variable moves memory and
checkpoints together, e.g. onto a persistent volume), else under
``./.crewgraph/`` next to the project the user runs from.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from crewgraph.checkpoint.sqlite_store import SQLiteCheckpointStore

__all__ = ["STORAGE_DIR_ENV", "CheckpointConfig", "default_checkpoint_path"]

STORAGE_DIR_ENV = "CREWGRAPH_STORAGE_DIR"
_DB_NAME = "checkpoints.db"


def default_checkpoint_path() -> Path:
    """``$CREWGRAPH_STORAGE_DIR/checkpoints.db`` if the variable is set, else
    ``./.crewgraph/checkpoints/checkpoints.db``.

    Read at call time (not import time) so tests and CLIs that set the
    variable late still get the location they asked for.
    """
    storage = os.environ.get(STORAGE_DIR_ENV, "").strip()
    if storage:
        return Path(storage).expanduser() / _DB_NAME
    return Path(".crewgraph") / "checkpoints" / _DB_NAME


class CheckpointConfig(BaseModel):
    """How a crew or flow checkpoints its run.

    - ``enabled``: save every finished node (``Crew(checkpoint=True)`` means
      a default config; ``False``/``None`` means no checkpointing).
    - ``path``: the SQLite file (see :func:`default_checkpoint_path`).
    - ``run_id``: the run to resume (``Crew.from_checkpoint``) or fork from
      (``Crew.fork``); ``None`` starts a new run.
    - ``branch``: a label stored on a forked run, so lineage is readable in
      ``crewgraph checkpoints list``.
    - ``keep_last``: keep only the newest N runs of the same name, pruning
      older ones when a run starts (``None`` keeps everything).
    """

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    path: Path = Field(default_factory=default_checkpoint_path)
    run_id: str | None = None
    branch: str | None = None
    keep_last: int | None = Field(default=None, ge=1)
    crewai: Any = Field(default=None, exclude=True, repr=False)
    """CrewAI's ``crewgraph.state.CheckpointConfig`` this came from, if any: its provider
    also writes CrewAI's checkpoint records of the run (``crewgraph.state.writer``)."""

    @field_validator("path", mode="before")
    @classmethod
    def _expand_path(cls, value: Any) -> Any:
        if isinstance(value, str | Path):
            return Path(value).expanduser()
        return value

    @classmethod
    def coerce(cls, value: CheckpointConfig | bool | None) -> CheckpointConfig | None:
        """Normalise the ``Crew(checkpoint=...)`` field: ``True`` -> default
        config, ``False``/``None``/a disabled config -> ``None``."""
        if value is None or value is False:
            return None
        if value is True:
            return cls()
        if isinstance(value, cls):
            return value if value.enabled else None
        convert = getattr(value, "to_store_config", None)
        if callable(convert):  # CrewAI's CheckpointConfig (crewgraph.state): the same store
            found = convert()
            return found if isinstance(found, cls) else None
        raise TypeError(
            f"checkpoint must be a CheckpointConfig, a bool or None, not {type(value).__name__}"
        )

    def open_store(self) -> SQLiteCheckpointStore:
        """Open (creating if needed) the SQLite store this config points at."""
        from crewgraph.checkpoint.sqlite_store import SQLiteCheckpointStore

        return SQLiteCheckpointStore(self.path, keep_last=self.keep_last)
