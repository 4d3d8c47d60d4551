"""Unified memory: ``Memory``, its views ``MemoryScope``/``MemorySlice``, and its data types.

Importing this package is cheap: Qdrant, onnxruntime and the LLM client load
on first use (a test guards it).
"""

from __future__ import annotations

from crewgraph.memory.memory import Memory
from crewgraph.memory.memory_scope import MemoryScope, MemorySlice
from crewgraph.memory.storage.backend import (
    EmbeddingDimensionMismatchError,
    MemoryStorageError,
    StorageBackend,
    StorageLockedError,
)
from crewgraph.memory.types import MemoryMatch, MemoryRecord, ScopeInfo, compute_composite_score

__all__ = [
    "EmbeddingDimensionMismatchError",
    "Memory",
    "MemoryMatch",
    "MemoryRecord",
    "MemoryScope",
    "MemorySlice",
    "MemoryStorageError",
    "ScopeInfo",
    "StorageBackend",
    "StorageLockedError",
    "compute_composite_score",
]
