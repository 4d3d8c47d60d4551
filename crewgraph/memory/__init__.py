"""Unified memory: ``Memory``, its views ``MemoryScope``/``MemorySlice``, and its data types.

Importing this package is cheap: Qdrant, onnxruntime and the LLM client load
on first use (a test guards it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crewgraph.memory.memory import Memory
from crewgraph.memory.memory_scope import MemoryScope, MemorySlice
from crewgraph.memory.storage.backend import (
    EmbeddingDimensionMismatchError,
    MemoryStorageError,
    StorageBackend,
    StorageLockedError,
)
from crewgraph.memory.types import (
    MemoryMatch,
    MemoryRecord,
    ScopeInfo,
    compute_composite_score,
    embed_text,
    embed_texts,
)

if TYPE_CHECKING:
    from crewgraph.memory.encoding_flow import EncodingFlow

__all__ = [
    "EmbeddingDimensionMismatchError",
    "EncodingFlow",
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
    "embed_text",
    "embed_texts",
]


def __getattr__(name: str) -> object:  # the flow engine loads only for the encoding flow
    if name == "EncodingFlow":
        from crewgraph.memory.encoding_flow import EncodingFlow

        return EncodingFlow
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
