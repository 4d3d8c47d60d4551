"""``BaseClient``: the operations a vector-store client offers (CrewAI's ``crewai.rag.core.base_client``).

Both clients (``crewgraph.rag.qdrant.client.QdrantClient`` and
``crewgraph.rag.chromadb.client.ChromaDBClient``) implement it; ``get_rag_client()``
returns one. Documents are ``{"content", "doc_id"?, "metadata"?}`` dicts; a search
returns ``{"id", "content", "metadata", "score"}`` dicts, best first.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["BaseClient"]


@runtime_checkable
class BaseClient(Protocol):
    """Collections of embedded documents, and similarity search in them."""

    client: Any
    embedding_function: Any

    def create_collection(self, *, collection_name: str) -> None: ...
    def get_or_create_collection(self, *, collection_name: str) -> Any: ...
    def add_documents(self, *, collection_name: str, documents: list[dict[str, Any]], batch_size: int = 100) -> None: ...
    def search(self, *, collection_name: str, query: str, limit: int = 5,
               metadata_filter: dict[str, Any] | None = None, score_threshold: float = 0.0) -> list[dict[str, Any]]: ...
    def delete_collection(self, *, collection_name: str) -> None: ...
    def reset(self) -> None: ...
