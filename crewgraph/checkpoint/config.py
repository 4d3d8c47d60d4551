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

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from crewgraph.checkpoint.lease import DEFAULT_LEASE_SECONDS, LEASE_SECONDS_ENV, LEASE_WAIT_ENV
from crewgraph.checkpoint.location import (
    Location,
    display,
    env_store_url,
    is_store_url,
    store_exists,
)

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
    - ``path``: the SQLite file (see :func:`default_checkpoint_path`), or a ``postgresql://``
      URL: the store is then that database (kept in ``url``; see docs/distributed.md).
    - ``url``: the PostgreSQL store, when there is one: ``path=URL``, or ``$CREWGRAPH_STORE_URL``
      when no ``path`` is given. ``location`` is whichever of the two the store is.
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
    url: str | None = Field(default=None, repr=False)
    crewai: Any = Field(default=None, exclude=True, repr=False)
    """CrewAI's ``crewgraph.state.CheckpointConfig`` this came from, if any: its provider
    also writes CrewAI's checkpoint records of the run (``crewgraph.state.writer``)."""

    @model_validator(mode="before")
    @classmethod
    def _url_from_path(cls, data: Any) -> Any:
        """``path=URL`` is the PostgreSQL store; no path and no url: ``$CREWGRAPH_STORE_URL``."""
        if not isinstance(data, dict):
            return data
        path = data.get("path")
        if is_store_url(path):
            data = {k: v for k, v in data.items() if k != "path"}
            data["url"] = str(path).strip()
        elif path is None and data.get("url") is None:
            found = env_store_url()
            if found is not None:
                data = {**data, "url": found}
        return data

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        if value is not None and not is_store_url(value):
            raise ValueError(f"url must be a postgresql:// URL, not {display(value)!r}")
        return value

    @property
    def location(self) -> Location:
        """The store: the PostgreSQL URL when there is one, else the SQLite file."""
        return self.url if self.url is not None else self.path

    @property
    def where(self) -> str:
        """The store for messages (a URL's password hidden)."""
        return display(self.location)

    def store_exists(self) -> bool:
        """Whether there is a store to read (a SQLite file that exists; a URL always)."""
        return store_exists(self.location)

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
        """Open (creating if needed) the store this config points at (SQLite, or PostgreSQL:
        a ``PostgresCheckpointStore``, the same class's methods over the server)."""
        from crewgraph.checkpoint.location import open_checkpoint_store

        store: SQLiteCheckpointStore = open_checkpoint_store(self.location, keep_last=self.keep_last)
        return store
