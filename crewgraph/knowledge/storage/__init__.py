"""Where knowledge chunks live: Qdrant, through the memory layer's storage backends."""

from crewgraph.knowledge.storage.knowledge_storage import (
    IndexReport,
    KnowledgeStorage,
    SearchResult,
)

__all__ = ["IndexReport", "KnowledgeStorage", "SearchResult"]
