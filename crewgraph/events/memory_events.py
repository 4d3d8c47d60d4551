"""Events of the unified memory (emitted with ``source_type="unified_memory"``, as CrewAI's)."""

from __future__ import annotations

from typing import Any, ClassVar

from crewgraph.events.base import BaseEvent

__all__ = [
    "MemoryBaseEvent",
    "MemoryQueryCompletedEvent",
    "MemoryQueryFailedEvent",
    "MemoryQueryStartedEvent",
    "MemoryRetrievalCompletedEvent",
    "MemoryRetrievalFailedEvent",
    "MemoryRetrievalStartedEvent",
    "MemorySaveCompletedEvent",
    "MemorySaveFailedEvent",
    "MemorySaveStartedEvent",
]


class MemoryBaseEvent(BaseEvent):
    """The base of the memory events (subscribe to it for all of them)."""

    type: str = "memory"
    family_source_type: ClassVar[str | None] = "unified_memory"
    from_task: Any = None
    from_agent: Any = None


_MemoryEvent = MemoryBaseEvent


class MemoryQueryStartedEvent(_MemoryEvent):
    type: str = "memory_query_started"
    query: str
    limit: int = 0
    score_threshold: float | None = None


class MemoryQueryCompletedEvent(_MemoryEvent):
    type: str = "memory_query_completed"
    query: str
    limit: int = 0
    score_threshold: float | None = None
    results: Any = None
    query_time_ms: float = 0.0


class MemoryQueryFailedEvent(_MemoryEvent):
    type: str = "memory_query_failed"
    query: str
    limit: int = 0
    score_threshold: float | None = None
    error: str


class MemorySaveStartedEvent(_MemoryEvent):
    type: str = "memory_save_started"
    value: str | None = None
    metadata: dict[str, Any] | None = None


class MemorySaveCompletedEvent(_MemoryEvent):
    type: str = "memory_save_completed"
    value: str | None = None
    metadata: dict[str, Any] | None = None
    save_time_ms: float = 0.0


class MemorySaveFailedEvent(_MemoryEvent):
    type: str = "memory_save_failed"
    value: str | None = None
    metadata: dict[str, Any] | None = None
    error: str


class MemoryRetrievalStartedEvent(_MemoryEvent):
    type: str = "memory_retrieval_started"


class MemoryRetrievalCompletedEvent(_MemoryEvent):
    type: str = "memory_retrieval_completed"
    memory_content: str = ""
    retrieval_time_ms: float = 0.0


class MemoryRetrievalFailedEvent(_MemoryEvent):
    """Recalling memories for a task's prompt raised (the task runs without them)."""

    type: str = "memory_retrieval_failed"
    error: str
