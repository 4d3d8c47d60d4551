"""Events of knowledge retrieval (CrewAI's names and fields).

Per task with knowledge: ``KnowledgeRetrievalStartedEvent``, then
``KnowledgeQueryStartedEvent`` / ``KnowledgeQueryCompletedEvent`` (or
``KnowledgeQueryFailedEvent``) around the search, then
``KnowledgeRetrievalCompletedEvent`` with the text the task's prompt gets.
``KnowledgeSearchQueryFailedEvent`` reports a search that raised.
"""

from __future__ import annotations

from typing import ClassVar

from crewgraph.events.base import BaseEvent

__all__ = [
    "KnowledgeQueryCompletedEvent",
    "KnowledgeQueryFailedEvent",
    "KnowledgeQueryStartedEvent",
    "KnowledgeRetrievalCompletedEvent",
    "KnowledgeRetrievalStartedEvent",
    "KnowledgeSearchQueryFailedEvent",
]


class _KnowledgeEvent(BaseEvent):
    source_type: str | None = "knowledge"
    task_name: str | None = None
    agent_role: str | None = None


class KnowledgeRetrievalStartedEvent(_KnowledgeEvent):
    event_type: ClassVar[str] = "knowledge_search_query_started"


class KnowledgeRetrievalCompletedEvent(_KnowledgeEvent):
    event_type: ClassVar[str] = "knowledge_search_query_completed"
    query: str
    retrieved_knowledge: str


class KnowledgeQueryStartedEvent(_KnowledgeEvent):
    event_type: ClassVar[str] = "knowledge_query_started"
    task_prompt: str


class KnowledgeQueryCompletedEvent(_KnowledgeEvent):
    event_type: ClassVar[str] = "knowledge_query_completed"
    query: str


class KnowledgeQueryFailedEvent(_KnowledgeEvent):
    event_type: ClassVar[str] = "knowledge_query_failed"
    error: str


class KnowledgeSearchQueryFailedEvent(_KnowledgeEvent):
    event_type: ClassVar[str] = "knowledge_search_query_failed"
    query: str
    error: str
