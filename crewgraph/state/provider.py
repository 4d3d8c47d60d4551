"""CrewAI's checkpoint storage providers, as where crewgraph's one checkpoint store lives.

crewgraph records a run's checkpoints once, in its SQLite checkpoint store
(``crewgraph checkpoints``, the web UI and ``from_checkpoint`` all read it).
CrewAI's provider choice decides only where that store is:

- :class:`JsonProvider`: ``location`` is a directory; the store is
  ``<location>/checkpoints.db``.
- :class:`SqliteProvider`: ``location`` is the database file itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["BaseProvider", "JsonProvider", "SqliteProvider"]

STORE_FILE = "checkpoints.db"


class BaseProvider(BaseModel):
    """Where a :class:`~crewgraph.state.CheckpointConfig` keeps the checkpoint store."""

    model_config = ConfigDict(extra="forbid")

    def database(self, location: str | Path) -> Path:
        raise NotImplementedError


class JsonProvider(BaseProvider):
    """``location`` is a directory holding the run store (``checkpoints.db``)."""

    provider_type: Literal["json"] = "json"

    def database(self, location: str | Path) -> Path:
        return Path(location).expanduser() / STORE_FILE


class SqliteProvider(BaseProvider):
    """``location`` is the SQLite database file."""

    provider_type: Literal["sqlite"] = "sqlite"

    def database(self, location: str | Path) -> Path:
        return Path(location).expanduser()
