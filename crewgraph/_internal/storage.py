"""Where crewgraph keeps what it stores on disk, by default: one root for every store.

``$CREWGRAPH_STORAGE_DIR`` when set, else ``./.crewgraph``: memory in ``<root>/memory``,
knowledge in ``<root>/knowledge``, flow states in ``<root>/flow_states.db``. Read at call
time, so a test or CLI that sets the variable late still gets the place it asked for.
CrewAI names the same things ``crewai.utilities.paths.db_storage_path`` and
``crewai.utilities.constants.KNOWLEDGE_DIRECTORY``; they are served from here.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["KNOWLEDGE_DIRECTORY", "MEMORY_DIRECTORY", "STORAGE_DIR_ENV", "db_storage_path", "storage_root"]

STORAGE_DIR_ENV = "CREWGRAPH_STORAGE_DIR"
KNOWLEDGE_DIRECTORY = "knowledge"
"""The folder under the storage root that holds knowledge collections."""
MEMORY_DIRECTORY = "memory"


def storage_root() -> Path:
    """``$CREWGRAPH_STORAGE_DIR`` (``~`` expanded) when set, else ``.crewgraph`` (relative)."""
    base = os.environ.get(STORAGE_DIR_ENV, "").strip()
    return Path(base).expanduser() if base else Path(".crewgraph")


def db_storage_path() -> str:
    """The storage root as an absolute path, created if missing (CrewAI's ``db_storage_path``)."""
    root = storage_root().resolve()
    root.mkdir(parents=True, exist_ok=True)
    return str(root)
