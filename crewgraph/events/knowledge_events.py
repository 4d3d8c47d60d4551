"""Events of knowledge retrieval (CrewAI's names and fields).

Per task with knowledge: ``KnowledgeRetrievalStartedEvent``, then
``KnowledgeQueryStartedEvent`` / ``KnowledgeQueryCompletedEvent`` (or
``KnowledgeQueryFailedEvent``) around the search, then
``KnowledgeRetrievalCompletedEvent`` with the text the task's prompt gets.
``KnowledgeSearchQueryFailedEvent`` reports a search that raised.
"""

from __future__ import annotations

from typing import Any, ClassVar

from crewgraph.events.base import BaseEvent

__all__ = [
    "KnowledgeEventBase",
    "KnowledgeQueryCompletedEvent",
    "KnowledgeQueryFailedEvent",
    "KnowledgeQueryStartedEvent",
    "KnowledgeRetrievalCompletedEvent",
    "KnowledgeRetrievalStartedEvent",
    "KnowledgeSearchQueryFailedEvent",
]


class KnowledgeEventBase(BaseEvent):
    """The base of the knowledge events (emitted with ``source_type="knowledge"``)."""

    type: str = "knowledge"
    family_source_type: ClassVar[str | None] = "knowledge"
    from_task: Any = None
    from_agent: Any = None


_KnowledgeEvent = KnowledgeEventBase


class KnowledgeRetrievalStartedEvent(_KnowledgeEvent):
    type: str = "knowledge_search_query_started"


class KnowledgeRetrievalCompletedEvent(_KnowledgeEvent):
    type: str = "knowledge_search_query_completed"
    query: str
    retrieved_knowledge: str


class KnowledgeQueryStartedEvent(_KnowledgeEvent):
    type: str = "knowledge_query_started"
    task_prompt: str


class KnowledgeQueryCompletedEvent(_KnowledgeEvent):
    type: str = "knowledge_query_completed"
    query: str


class KnowledgeQueryFailedEvent(_KnowledgeEvent):
    type: str = "knowledge_query_failed"
    error: str


class KnowledgeSearchQueryFailedEvent(_KnowledgeEvent):
    type: str = "knowledge_search_query_failed"
    query: str
    error: str
