"""CrewAI's checkpoint storage providers: where a checkpoint's record is written, as CrewAI lays it out.

A run's outputs are recorded once, in crewgraph's SQLite checkpoint store
(``crewgraph checkpoints``, the web UI and every resume read it). A CrewAI
checkpoint -- one per ``on_events`` trigger -- is the lineage record CrewAI's
API and tools read: a :class:`~crewgraph.state.runtime.RuntimeState` JSON
document (``crewai_version``, ``parent_id``, ``branch``, ``entities``,
``event_record``) plus the run in the store it stands for. The provider writes
it where CrewAI does:

- :class:`JsonProvider`: ``location`` is a directory; each checkpoint is the
  file ``<location>/<branch>/<YYYYmmddTHHMMSS>_<8 hex>_p-<parent id|none>.json``
  (written atomically); the store is ``<location>/checkpoints.db``.
- :class:`SqliteProvider`: ``location`` is the database file; checkpoints are
  rows of its ``checkpoints`` table, addressed ``<location>#<checkpoint id>``;
  the store's tables live in the same file.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import threading
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, PrivateAttr

__all__ = ["BaseProvider", "JsonProvider", "SqliteProvider", "new_checkpoint_id"]

STORE_FILE = "checkpoints.db"


def new_checkpoint_id() -> str:
    """CrewAI's checkpoint id: a UTC second stamp and 8 random hex digits."""
    return f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}_{uuid.uuid4().hex[:8]}"


class BaseProvider(BaseModel):
    """Writes, reads and prunes checkpoints (CrewAI's provider methods), and places the store."""

    model_config = ConfigDict(extra="forbid")
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def database(self, location: str | Path) -> Path:
        """crewgraph's run store for checkpoints at ``location``."""
        raise NotImplementedError

    def checkpoint(self, data: str, location: str, *, parent_id: str | None = None, branch: str = "main") -> str:
        """Write checkpoint ``data`` (JSON text); the location of the new checkpoint."""
        raise NotImplementedError

    async def acheckpoint(self, data: str, location: str, *, parent_id: str | None = None,
                          branch: str = "main") -> str:
        return await asyncio.to_thread(self.checkpoint, data, location, parent_id=parent_id, branch=branch)

    def from_checkpoint(self, location: str) -> str:
        """The JSON text of the checkpoint at ``location``."""
        raise NotImplementedError

    async def afrom_checkpoint(self, location: str) -> str:
        return await asyncio.to_thread(self.from_checkpoint, location)

    def prune(self, location: str, max_keep: int, *, branch: str = "main") -> int:
        """Remove the oldest checkpoints of ``branch`` beyond ``max_keep``; how many were removed."""
        raise NotImplementedError

    def extract_id(self, location: str) -> str:
        """The checkpoint id in a checkpoint's location."""
        raise NotImplementedError


def _branch_dir(location: str | Path, branch: str) -> Path:
    base = Path(location).expanduser().resolve()
    target = (base / branch).resolve()
    if target != base and base not in target.parents:
        raise ValueError(f"checkpoint branch {branch!r} escapes the checkpoint directory {str(base)!r}")
    return target


class JsonProvider(BaseProvider):
    """One JSON file per checkpoint under ``<location>/<branch>/``; the store is ``<location>/checkpoints.db``."""

    provider_type: Literal["json"] = "json"

    def database(self, location: str | Path) -> Path:
        return Path(location).expanduser() / STORE_FILE

    def checkpoint(self, data: str, location: str, *, parent_id: str | None = None, branch: str = "main") -> str:
        folder = _branch_dir(location, branch)
        with self._lock:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{new_checkpoint_id()}_p-{parent_id or 'none'}.json"
            fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write(data)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        return str(path)

    def from_checkpoint(self, location: str) -> str:
        return Path(location).expanduser().read_text(encoding="utf-8")

    def prune(self, location: str, max_keep: int, *, branch: str = "main") -> int:
        folder = _branch_dir(location, branch)
        files = sorted(folder.glob("*.json"), key=lambda p: (p.stat().st_mtime, p.name))
        doomed = files if max_keep == 0 else files[:-max_keep]
        for path in doomed:
            path.unlink(missing_ok=True)
        return len(doomed)

    def extract_id(self, location: str) -> str:
        stem = Path(location).stem
        cut = stem.find("_p-")
        return stem[:cut] if cut != -1 else stem


_TABLE = """CREATE TABLE IF NOT EXISTS checkpoints (
    id TEXT PRIMARY KEY, created_at TEXT NOT NULL, parent_id TEXT, branch TEXT NOT NULL DEFAULT 'main',
    data TEXT NOT NULL)"""


class SqliteProvider(BaseProvider):
    """Checkpoints as rows of a ``checkpoints`` table in the database file ``location``
    (addressed ``<location>#<id>``); crewgraph's store shares the file."""

    provider_type: Literal["sqlite"] = "sqlite"

    def database(self, location: str | Path) -> Path:
        return Path(location).expanduser()

    @staticmethod
    def _connect(path: str | Path) -> Any:
        import sqlite3

        Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(Path(path).expanduser(), timeout=30)
        conn.execute(_TABLE)
        return conn

    def checkpoint(self, data: str, location: str, *, parent_id: str | None = None, branch: str = "main") -> str:
        checkpoint_id = new_checkpoint_id()
        with self._lock:
            conn = self._connect(location)
            try:
                with conn:
                    conn.execute("INSERT INTO checkpoints (id, created_at, parent_id, branch, data) "
                                 "VALUES (?, ?, ?, ?, ?)",
                                 (checkpoint_id, datetime.now(UTC).isoformat(), parent_id, branch, data))
            finally:
                conn.close()
        return f"{location}#{checkpoint_id}"

    def from_checkpoint(self, location: str) -> str:
        path, _, checkpoint_id = location.rpartition("#")
        if not path:
            raise ValueError(f"a SqliteProvider checkpoint location is '<database>#<checkpoint id>', got {location!r}")
        conn = self._connect(path)
        try:
            row = conn.execute("SELECT data FROM checkpoints WHERE id = ?", (checkpoint_id,)).fetchone()
        finally:
            conn.close()
        if row is None:
            raise ValueError(f"no checkpoint {checkpoint_id!r} in {path!r}")
        return str(row[0])

    def prune(self, location: str, max_keep: int, *, branch: str = "main") -> int:
        with self._lock:
            conn = self._connect(location)
            try:
                with conn:
                    cur = conn.execute(
                        "DELETE FROM checkpoints WHERE branch = ? AND rowid NOT IN (SELECT rowid FROM "
                        "checkpoints WHERE branch = ? ORDER BY rowid DESC LIMIT ?)", (branch, branch, max_keep))
                return int(cur.rowcount)
            finally:
                conn.close()

    def extract_id(self, location: str) -> str:
        return location.rpartition("#")[2]


def detect_provider(location: str) -> BaseProvider:
    """The provider a checkpoint location belongs to (``db#id``: SQLite; else a JSON file)."""
    path, sep, _ = location.rpartition("#")
    if sep and Path(path).expanduser().is_file():
        return SqliteProvider()
    return JsonProvider()
