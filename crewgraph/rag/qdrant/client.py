"""``QdrantClient``: CrewAI's RAG client interface on qdrant-client (embedded engine or a server).

Collections use cosine distance with the embedding's size (or
``vectors_config``); a document's id is its ``doc_id`` or a hash of its
content, so adding the same document twice updates it. Scores are Qdrant's
cosine similarities; ``metadata_filter`` is an equality match on metadata keys.
"""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

from crewgraph.rag.core.async_twins import ThreadedAsyncTwins
from crewgraph.rag.qdrant.config import QdrantConfig

__all__ = ["QdrantClient"]

_NS = uuid.UUID("5f1d7c8e-3a2b-4c6d-9e0f-1a2b3c4d5e6f")


def _import() -> Any:
    try:
        import qdrant_client
    except ImportError:
        raise ImportError("the Qdrant RAG client needs qdrant-client: pip install 'crewgraph[qdrant]'") from None
    return qdrant_client


class QdrantClient(ThreadedAsyncTwins):
    """Collections of documents in Qdrant; see the module doc."""

    def __init__(self, config: QdrantConfig | None = None, client: Any | None = None) -> None:
        self.config = config or QdrantConfig()
        self.embedding_function = self.config.embedding_function
        self.client = client or _import().QdrantClient(**self.config.options)

    def _embed(self, text: str) -> list[float]:
        return [float(x) for x in self.embedding_function(text)]

    def create_collection(self, *, collection_name: str) -> None:
        if self.client.collection_exists(collection_name):
            raise ValueError(f"Collection {collection_name!r} already exists")
        models = _import().models
        vectors = self.config.vectors_config or models.VectorParams(
            size=len(self._embed("dimension probe")), distance=models.Distance.COSINE)
        self.client.create_collection(collection_name, vectors_config=vectors)

    def get_or_create_collection(self, *, collection_name: str) -> Any:
        if not self.client.collection_exists(collection_name):
            self.create_collection(collection_name=collection_name)
        return self.client.get_collection(collection_name)

    def add_documents(self, *, collection_name: str, documents: list[dict[str, Any]], batch_size: int | None = None) -> None:
        if not documents:
            raise ValueError("documents list cannot be empty")
        if not self.client.collection_exists(collection_name):
            raise ValueError(f"Collection {collection_name!r} does not exist")
        models = _import().models
        size = batch_size or self.config.batch_size
        for start in range(0, len(documents), size):
            points = []
            for doc in documents[start:start + size]:
                if not isinstance(doc, dict) or "content" not in doc:
                    raise TypeError("each document must be a dict with 'content' (and optional 'doc_id', 'metadata')")
                doc_id = str(doc.get("doc_id") or hashlib.sha256(str(doc["content"]).encode()).hexdigest())
                points.append(models.PointStruct(
                    id=str(uuid.uuid5(_NS, doc_id)), vector=self._embed(str(doc["content"])),
                    payload={"doc_id": doc_id, "content": doc["content"], "metadata": dict(doc.get("metadata") or {})}))
            self.client.upsert(collection_name, points=points)

    def search(self, *, collection_name: str, query: str, limit: int | None = None,
               metadata_filter: dict[str, Any] | None = None, score_threshold: float | None = None) -> list[dict[str, Any]]:
        if not self.client.collection_exists(collection_name):
            raise ValueError(f"Collection {collection_name!r} does not exist")
        models = _import().models
        query_filter = models.Filter(must=[
            models.FieldCondition(key=f"metadata.{k}", match=models.MatchValue(value=v))
            for k, v in (metadata_filter or {}).items()]) if metadata_filter else None
        found = self.client.query_points(
            collection_name, query=self._embed(query), query_filter=query_filter,
            limit=limit or self.config.limit,
            score_threshold=self.config.score_threshold if score_threshold is None else score_threshold,
            with_payload=True)
        return [{"id": (p.payload or {}).get("doc_id", str(p.id)), "content": (p.payload or {}).get("content", ""),
                 "metadata": (p.payload or {}).get("metadata", {}), "score": p.score} for p in found.points]

    def delete_collection(self, *, collection_name: str) -> None:
        if not self.client.collection_exists(collection_name):
            raise ValueError(f"Collection {collection_name!r} does not exist")
        self.client.delete_collection(collection_name)

    def reset(self) -> None:
        for collection in self.client.get_collections().collections:
            self.client.delete_collection(collection.name)
