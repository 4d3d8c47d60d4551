"""Events of the unified memory (all with ``source_type="unified_memory"``)."""

from __future__ import annotations

from typing import Any, ClassVar

from crewgraph.events.base import BaseEvent

__all__ = [
    "MemoryQueryCompletedEvent",
    "MemoryQueryFailedEvent",
    "MemoryQueryStartedEvent",
    "MemoryRetrievalCompletedEvent",
    "MemoryRetrievalStartedEvent",
    "MemorySaveCompletedEvent",
    "MemorySaveFailedEvent",
    "MemorySaveStartedEvent",
]


class _MemoryEvent(BaseEvent):
    source_type: str | None = "unified_memory"


class MemoryQueryStartedEvent(_MemoryEvent):
    event_type: ClassVar[str] = "memory_query_started"
    query: str
    limit: int = 0


class MemoryQueryCompletedEvent(_MemoryEvent):
    event_type: ClassVar[str] = "memory_query_completed"
    query: str
    limit: int = 0
    results: Any = None
    query_time_ms: float = 0.0


class MemoryQueryFailedEvent(_MemoryEvent):
    event_type: ClassVar[str] = "memory_query_failed"
    query: str
    error: str


class MemorySaveStartedEvent(_MemoryEvent):
    event_type: ClassVar[str] = "memory_save_started"
    value: str | None = None
    metadata: dict[str, Any] | None = None


class MemorySaveCompletedEvent(_MemoryEvent):
    event_type: ClassVar[str] = "memory_save_completed"
    value: str | None = None
    metadata: dict[str, Any] | None = None
    save_time_ms: float = 0.0


class MemorySaveFailedEvent(_MemoryEvent):
    event_type: ClassVar[str] = "memory_save_failed"
    value: str | None = None
    error: str


class MemoryRetrievalStartedEvent(_MemoryEvent):
    event_type: ClassVar[str] = "memory_retrieval_started"
    task_id: str | None = None


class MemoryRetrievalCompletedEvent(_MemoryEvent):
    event_type: ClassVar[str] = "memory_retrieval_completed"
    task_id: str | None = None
    memory_content: str = ""
    retrieval_time_ms: float = 0.0
