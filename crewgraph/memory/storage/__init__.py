"""Memory storage: the :class:`StorageBackend` contract and its Qdrant implementations.

The backends themselves (``qdrant_edge``, ``qdrant_server``) are imported on
use, so importing this package does not load any Qdrant library.
"""

from __future__ import annotations

from crewgraph.memory.storage.backend import (
    EmbeddingDimensionMismatchError,
    MemoryStorageError,
    StorageBackend,
    StorageLockedError,
)
from crewgraph.memory.storage.factory import default_storage_path, resolve_storage

__all__ = [
    "EmbeddingDimensionMismatchError",
    "MemoryStorageError",
    "StorageBackend",
    "StorageLockedError",
    "default_storage_path",
    "resolve_storage",
]
