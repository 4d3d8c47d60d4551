"""``KnowledgeStorage``: knowledge chunks in Qdrant, embedded once per content.

The store is the memory layer's: the embedded Qdrant engine by default (one
directory per collection under ``$CREWGRAPH_STORAGE_DIR/knowledge`` or
``./.crewgraph/knowledge``), a Qdrant server when ``CREWGRAPH_QDRANT_URL`` is set
or ``url=`` is given (collection ``crewgraph_knowledge_<name>``). Each document
is stored under the scope ``/k/<content hash>``: a document whose text (or
chunking) has not changed is never embedded again, an edited one is a new
scope, and scopes no source produces any more are deleted. Knowledge is
derived data, so a store built with another embedder (other vector size) is
rebuilt rather than refused.

A RAG configuration set with ``crewgraph.rag.config.utils.set_rag_config`` (CrewAI's
``crewai.rag``) is honoured: its embedding function embeds the chunks of a storage made
without an embedder of its own, and a ``QdrantConfig``'s client holds the collection (when
neither ``url=`` nor ``CREWGRAPH_QDRANT_URL`` names a server). With a ``ChromaDBConfig`` the
chunks stay in crewgraph's Qdrant store (only its embedding function is used; docs/porting.md).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import tempfile
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

__all__ = ["IndexReport", "KnowledgeStorage", "SearchResult", "document_id"]

_logger = logging.getLogger("crewgraph.knowledge")
_NS = uuid.UUID("9a3e55c1-7a0b-4cbe-9d35-5d0f6d1e2b77")
_ROOT = "/k"
_BATCH = 64


class SearchResult(TypedDict):
    """One retrieved chunk (CrewAI's ``SearchResult`` keys); ``score`` is cosine similarity."""

    id: str
    content: str
    metadata: dict[str, Any]
    score: float


@dataclass
class IndexReport:
    """What one indexing pass did: documents embedded now, kept as they were, and removed."""

    embedded: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    removed: int = 0
    chunks: int = 0


def document_id(name: str, text: str, chunk_size: int, overlap: int, embedder: str = "") -> str:
    """Content hash of a document as it will be chunked and embedded (the chunking and the
    embedder are part of what is stored, so changing either re-indexes)."""
    digest = hashlib.sha256(f"{embedder}|{chunk_size}|{overlap}|{name}\x00".encode())
    digest.update(text.encode("utf-8", errors="replace"))
    return digest.hexdigest()[:32]


def _collection(name: str | None) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", (name or "knowledge").strip()).strip("_").lower()[:60] or "knowledge"


def _cosine(similarity: float) -> float:
    """The backends' similarity is ``1/(1+d)`` with cosine distance ``d = 1 - cos``."""
    return max(-1.0, min(1.0, 2.0 - 1.0 / max(similarity, 1e-9)))


def _min_similarity(threshold: float) -> float:
    return 1.0 / (2.0 - max(-1.0, min(1.0, threshold)))


class KnowledgeStorage:
    """Chunks and vectors of one knowledge collection."""

    def __init__(
        self,
        embedder: Any = None,
        collection_name: str | None = None,
        *,
        url: str | None = None,
        path: str | os.PathLike[str] | None = None,
        backend: Any = None,
    ) -> None:
        self.collection_name = _collection(collection_name)
        self.embedder_spec = embedder
        self.url = url
        self.path = Path(path) if path is not None else None
        self._backend = backend
        self._given = backend is not None
        self._embedder: Any = None
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ parts
    @property
    def embedder(self) -> Any:
        with self._lock:
            if self._embedder is None:
                from crewgraph.rag.config.utils import configured_embedder
                from crewgraph.rag.embeddings.factory import build_embedder

                configured = configured_embedder() if self.embedder_spec is None else None
                self._embedder = configured or build_embedder(self.embedder_spec)
            return self._embedder

    @property
    def embedder_key(self) -> str:
        """Which embedder made the vectors (its model and size), for document ids."""
        from crewgraph.rag.index import _embedder_key

        return _embedder_key(self.embedder)

    @property
    def location(self) -> str:
        url = self.url or os.environ.get("CREWGRAPH_QDRANT_URL")
        if self._given:
            return repr(self._backend)
        if url:
            return f"{url} (collection crewgraph_knowledge_{self.collection_name})"
        return str(self._edge_path())

    def _edge_path(self) -> Path:
        if self.path is not None:
            return self.path
        from crewgraph._internal.storage import KNOWLEDGE_DIRECTORY, storage_root

        return storage_root() / KNOWLEDGE_DIRECTORY / self.collection_name

    @property
    def backend(self) -> Any:
        with self._lock:
            if self._backend is None:
                self._backend = self._open()
            return self._backend

    def _open(self) -> Any:
        url = self.url or os.environ.get("CREWGRAPH_QDRANT_URL")
        if url:
            from crewgraph.memory.storage.qdrant_server import QdrantServerStorage

            return QdrantServerStorage(
                url,
                api_key=os.environ.get("CREWGRAPH_QDRANT_API_KEY") or None,
                collection=f"crewgraph_knowledge_{self.collection_name}",
            )
        from crewgraph.rag.config.utils import get_rag_client, get_rag_config, has_rag_config

        if self.path is None and has_rag_config() and get_rag_config().provider == "qdrant":
            from crewgraph.memory.storage.qdrant_server import QdrantServerStorage

            return QdrantServerStorage(client=get_rag_client().client, collection=f"crewgraph_knowledge_{self.collection_name}")
        from crewgraph.memory.storage.backend import StorageLockedError
        from crewgraph.memory.storage.qdrant_edge import QdrantEdgeStorage

        store = QdrantEdgeStorage(self._edge_path(), lock_timeout=0.5)
        try:
            store.count()
        except StorageLockedError:
            private = Path(tempfile.mkdtemp(prefix="crewgraph-knowledge-"))
            _logger.info("knowledge store %s is in use by another process; using %s", self._edge_path(), private)
            store = QdrantEdgeStorage(private)
        return store

    def close(self) -> None:
        with self._lock:
            if self._backend is not None and not self._given and hasattr(self._backend, "close"):
                self._backend.close()
                self._backend = None

    # ------------------------------------------------------------------ writing
    def index(self, documents: list[tuple[str, list[str], dict[str, Any], str]]) -> IndexReport:
        """Make the store hold exactly ``documents``: ``(name, chunks, metadata, doc_id)`` each.

        A document already stored under its id is kept as it is (no embedding); scopes
        of documents no longer given are deleted.
        """
        from crewgraph.memory.storage.backend import EmbeddingDimensionMismatchError

        report = IndexReport()
        with self._lock:
            backend = self.backend
            wanted = {f"{_ROOT}/{doc_id}" for *_, doc_id in documents}
            for name, chunks, metadata, doc_id in documents:
                scope = f"{_ROOT}/{doc_id}"
                if backend.count(scope) >= max(len(chunks), 1):
                    report.kept.append(name)
                    continue
                try:
                    self._store(scope, name, chunks, metadata)
                except EmbeddingDimensionMismatchError:
                    _logger.info("knowledge store %s was built with another embedder; rebuilding it", self.location)
                    backend.reset()
                    return self.index(documents)
                report.embedded.append(name)
                report.chunks += len(chunks)
            report.removed = self._drop_old_versions(wanted, {name for name, *_ in documents})
        return report

    def _drop_old_versions(self, wanted: set[str], names: set[str]) -> int:
        """Delete stored documents that are earlier versions of the given ones (same source name,
        other content). Documents of other names may belong to another crew or agent sharing
        the collection, and are never searched from here anyway (searches name their ids)."""
        removed = 0
        for scope in self.backend.list_scopes(_ROOT):
            if scope in wanted:
                continue
            sample = self.backend.list_records(scope, limit=1)
            if sample and sample[0].metadata.get("source") in names:
                removed += self.backend.delete(scope_prefix=scope)
        return removed

    def _store(self, scope: str, name: str, chunks: list[str], metadata: dict[str, Any]) -> list[list[float]]:
        from crewgraph.memory.types import MemoryRecord

        made: list[list[float]] = []
        backend = self.backend
        backend.delete(scope_prefix=scope)  # a partly written document (a crash mid-way) starts over
        for start in range(0, len(chunks), _BATCH):
            batch = chunks[start : start + _BATCH]
            vectors = self.embedder(batch)
            if len(vectors) != len(batch):
                raise ValueError(f"the embedder returned {len(vectors)} vectors for {len(batch)} chunks")
            made.extend([float(x) for x in vector] for vector in vectors)
            backend.save(
                [
                    MemoryRecord(
                        id=str(uuid.uuid5(_NS, f"{scope}:{start + i}")),
                        content=chunk,
                        scope=scope,
                        metadata={**metadata, "source": name, "chunk": start + i},
                        embedding=[float(x) for x in vector],
                    )
                    for i, (chunk, vector) in enumerate(zip(batch, vectors, strict=True))
                ]
            )
        return made

    def save(self, documents: list[str]) -> None:
        """Store ``documents`` (texts, already chunked) as they are, as CrewAI's storage does; a
        text already stored is not embedded again."""
        self.save_chunks(documents)

    def save_chunks(self, documents: list[str], metadata: dict[str, Any] | None = None) -> list[list[float]]:
        """:meth:`save`, returning the vectors of the chunks it embedded now (a source's ``chunk_embeddings``)."""
        texts = [str(d) for d in documents if str(d).strip()]
        if not texts:
            return []
        doc_id = hashlib.sha256("\x00".join([self.embedder_key, *texts]).encode()).hexdigest()[:32]
        scope = f"{_ROOT}/{doc_id}"
        with self._lock:
            if self.backend.count(scope) >= len(texts):
                return []
            return self._store(scope, f"saved:{doc_id[:8]}", texts, dict(metadata or {}))

    async def asave(self, documents: list[str]) -> None:
        """:meth:`save` in a worker thread."""
        import asyncio

        await asyncio.to_thread(self.save, documents)

    def reset(self) -> None:
        """Delete every chunk of this collection."""
        with self._lock:
            self.backend.reset()

    async def areset(self) -> None:
        """:meth:`reset` in a worker thread."""
        import asyncio

        await asyncio.to_thread(self.reset)

    # ------------------------------------------------------------------ reading
    def search(
        self, query: list[str] | str, limit: int = 5, metadata_filter: dict[str, Any] | None = None,
        score_threshold: float = 0.6, *, doc_ids: list[str] | None = None,
    ) -> list[SearchResult]:
        """The best chunks for the query (several query strings are joined, as in CrewAI), at
        most ``limit``, each at least ``score_threshold`` similar and, with ``metadata_filter``,
        carrying those metadata values; ``doc_ids`` keeps the search to those documents."""
        text = " ".join(query) if isinstance(query, list | tuple) else str(query)
        if not text.strip():
            return []
        vector = [float(x) for x in self.embedder([text])[0]]
        scopes = [f"{_ROOT}/{d}" for d in sorted(set(doc_ids))] if doc_ids is not None else [_ROOT]
        if not scopes:
            return []
        hits = self.backend.search(
            vector, scopes=scopes, limit=limit, min_score=_min_similarity(score_threshold),
            metadata_filter=metadata_filter,
        )
        return [
            SearchResult(id=record.id, content=record.content, metadata=dict(record.metadata), score=_cosine(s))
            for record, s in hits
        ]

    async def asearch(
        self, query: list[str], limit: int = 5, metadata_filter: dict[str, Any] | None = None,
        score_threshold: float = 0.6,
    ) -> list[SearchResult]:
        """:meth:`search` in a worker thread."""
        import asyncio

        return await asyncio.to_thread(self.search, query, limit, metadata_filter, score_threshold)
