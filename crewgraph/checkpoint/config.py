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

from crewgraph.checkpoint.lease import DEFAULT_LEASE_SECONDS, LEASE_SECONDS_ENV, LEASE_WAIT_ENV

if TYPE_CHECKING:
    from crewgraph.checkpoint.sqlite_store import SQLiteCheckpointStore

__all__ = ["STORAGE_DIR_ENV", "CheckpointConfig", "default_checkpoint_path"]

STORAGE_DIR_ENV = "CREWGRAPH_STORAGE_DIR"
_DB_NAME = "checkpoints.db"


def _env_seconds(name: str, default: float) -> float:
    """A number of seconds from the environment; a bad value is an error naming the variable."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"${name} must be a number of seconds, not {raw!r}") from None
    if value < 0:
        raise ValueError(f"${name} must not be negative, got {raw!r}")
    return value


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
    - ``run_key``: the caller's key for the run (``kickoff(..., run_key=...)``): the first
      kickoff binds it to a new run, every later one resumes that run or returns its
      recorded output (see :mod:`crewgraph.checkpoint.run_keys`).
    - ``lease_seconds``: how long the lease a running process holds on its run lasts
      unrenewed (renewed every third of it; ``$CREWGRAPH_LEASE_SECONDS``, default 30): the
      longest a crashed holder on another machine blocks a resume.
    - ``lease_wait``: how long a process waits for another one's lease on the run before
      raising :class:`~crewgraph.checkpoint.lease.RunLeasedError` (``$CREWGRAPH_LEASE_WAIT``,
      default 0: fail at once, naming the holder).
    """

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    path: Path = Field(default_factory=default_checkpoint_path)
    run_id: str | None = None
    branch: str | None = None
    keep_last: int | None = Field(default=None, ge=1)
    lease_seconds: float = Field(default_factory=lambda: _env_seconds(LEASE_SECONDS_ENV, DEFAULT_LEASE_SECONDS), gt=0)
    lease_wait: float = Field(default_factory=lambda: _env_seconds(LEASE_WAIT_ENV, 0.0), ge=0)
    run_key: str | None = None
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
