"""``ChromaDBClient``: CrewAI's RAG client interface on chromadb (cosine space; score = 1 - distance)."""

from __future__ import annotations

import hashlib
from typing import Any

from crewgraph.rag.chromadb.config import ChromaDBConfig, import_chromadb
from crewgraph.rag.core.async_twins import ThreadedAsyncTwins

__all__ = ["ChromaDBClient"]


class ChromaDBClient(ThreadedAsyncTwins):
    """Collections of documents in ChromaDB (persistent or in memory, per ``settings``)."""

    def __init__(self, config: ChromaDBConfig | None = None, client: Any | None = None) -> None:
        self.config = config or ChromaDBConfig()
        self.embedding_function = self.config.embedding_function
        if client is None:
            chromadb = import_chromadb()
            settings = self.config.settings
            if getattr(settings, "is_persistent", False) and settings.persist_directory:
                client = chromadb.PersistentClient(path=settings.persist_directory, settings=settings,
                                                   tenant=self.config.tenant, database=self.config.database)
            else:
                client = chromadb.EphemeralClient(settings=settings, tenant=self.config.tenant,
                                                  database=self.config.database)
        self.client = client

    def _vectors(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in v] for v in self.embedding_function(texts)]

    def _collection(self, name: str) -> Any:
        try:
            return self.client.get_collection(name)
        except Exception as exc:  # chromadb raises NotFoundError (a ValueError in older versions)
            raise ValueError(f"Collection {name!r} does not exist") from exc

    def create_collection(self, *, collection_name: str) -> None:
        if collection_name in [c.name if hasattr(c, "name") else c for c in self.client.list_collections()]:
            raise ValueError(f"Collection {collection_name!r} already exists")
        self.client.create_collection(collection_name, metadata={"hnsw:space": "cosine"})

    def get_or_create_collection(self, *, collection_name: str) -> Any:
        return self.client.get_or_create_collection(collection_name, metadata={"hnsw:space": "cosine"})

    def add_documents(self, *, collection_name: str, documents: list[dict[str, Any]], batch_size: int | None = None) -> None:
        if not documents:
            raise ValueError("documents list cannot be empty")
        collection = self._collection(collection_name)
        size = batch_size or self.config.batch_size
        for start in range(0, len(documents), size):
            batch = documents[start:start + size]
            for doc in batch:
                if not isinstance(doc, dict) or "content" not in doc:
                    raise TypeError("each document must be a dict with 'content' (and optional 'doc_id', 'metadata')")
            texts = [str(d["content"]) for d in batch]
            ids = [str(d.get("doc_id") or hashlib.sha256(t.encode()).hexdigest()) for d, t in zip(batch, texts, strict=True)]
            metadatas = [dict(d.get("metadata") or {}) or None for d in batch]
            collection.upsert(ids=ids, documents=texts, embeddings=self._vectors(texts), metadatas=metadatas)

    def search(self, *, collection_name: str, query: str, limit: int | None = None,
               metadata_filter: dict[str, Any] | None = None, score_threshold: float | None = None) -> list[dict[str, Any]]:
        collection = self._collection(collection_name)
        threshold = self.config.score_threshold if score_threshold is None else score_threshold
        found = collection.query(query_embeddings=self._vectors([query]), n_results=limit or self.config.limit,
                                 where=metadata_filter or None, include=["documents", "metadatas", "distances"])
        results = []
        for doc_id, text, meta, distance in zip(found["ids"][0], found["documents"][0], found["metadatas"][0],
                                                found["distances"][0], strict=True):
            score = 1.0 - float(distance)
            if score >= threshold:
                results.append({"id": doc_id, "content": text, "metadata": dict(meta or {}), "score": score})
        return results

    def delete_collection(self, *, collection_name: str) -> None:
        self._collection(collection_name)
        self.client.delete_collection(collection_name)

    def reset(self) -> None:
        self.client.reset()
