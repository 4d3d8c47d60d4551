"""A retrieval index over local files, on the memory layer's embedder and Qdrant storage.

Each file's chunks are stored under the scope ``/docs/<content hash>``, so

- a file is embedded once per content (re-running a crew, or two tools on
  the same file, costs one hash of its bytes), and an edited file is simply
  a new document;
- a search over some files is one filtered Qdrant query over their scopes.

The index lives in ``$CREWGRAPH_STORAGE_DIR/rag/<embedder>`` or
``./.crewgraph/rag/<embedder>`` (one store per embedder, since vector sizes
differ). If another process holds that store, this process indexes into a
private temporary store instead of failing.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import tempfile
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crewgraph.memory.storage.backend import StorageLockedError
from crewgraph.memory.types import MemoryRecord

__all__ = ["RagHit", "RagIndex", "get_index"]

_logger = logging.getLogger("crewgraph.rag")
_NS = uuid.UUID("0b6f2f8e-2a4e-4f0b-8f53-6c1d9f3c2a10")


@dataclass(frozen=True)
class RagHit:
    content: str
    source: str
    score: float


def _embedder_key(embedder: Any) -> str:
    name = (
        getattr(embedder, "model_name", None)
        or getattr(embedder, "model", None)
        or getattr(embedder, "__qualname__", None)  # a plain function
        or type(embedder).__name__
    )
    dims = getattr(embedder, "dimension", None) or getattr(embedder, "dimensions", None)
    key = f"{name}-{dims}" if dims else str(name)
    return re.sub(r"[^A-Za-z0-9._-]+", "_", key).strip("_").lower() or "embedder"


def _default_root() -> Path:
    from crewgraph.memory.storage.factory import default_storage_path

    return default_storage_path().parent / "rag"


class RagIndex:
    """Chunks of documents (files or texts) with their vectors; search restricted to some documents."""

    def __init__(self, embedder: Any, root: str | os.PathLike[str] | None = None) -> None:
        self.embedder = embedder
        self.path = Path(root) if root is not None else _default_root() / _embedder_key(embedder)
        self._storage: Any = None
        self._lock = threading.RLock()
        self._known: dict[tuple[str, int, int, int, int], str] = {}

    @property
    def storage(self) -> Any:
        with self._lock:
            if self._storage is None:
                from crewgraph.memory.storage.qdrant_edge import QdrantEdgeStorage

                store = QdrantEdgeStorage(self.path, lock_timeout=0.5)
                try:
                    store.count()
                except StorageLockedError:
                    private = Path(tempfile.mkdtemp(prefix="crewgraph-rag-"))
                    _logger.info("RAG index %s is in use by another process; using %s", self.path, private)
                    store = QdrantEdgeStorage(private)
                self._storage = store
            return self._storage

    def close(self) -> None:
        with self._lock:
            if self._storage is not None:
                self._storage.close()
                self._storage = None

    def _store(self, doc_id: str, source: str, chunks: list[str]) -> None:
        scope = f"/docs/{doc_id}"
        if not chunks or self.storage.count(scope) >= len(chunks):
            return
        vectors = self.embedder(chunks)
        records = [
            MemoryRecord(
                id=str(uuid.uuid5(_NS, f"{doc_id}:{i}")),
                content=chunk,
                scope=scope,
                metadata={"source": source, "chunk": i},
                embedding=[float(x) for x in vector],
            )
            for i, (chunk, vector) in enumerate(zip(chunks, vectors, strict=True))
        ]
        for start in range(0, len(records), 1000):
            self.storage.save(records[start : start + 1000])

    def add_file(self, path: Path, chunk_size: int = 1000, overlap: int = 200) -> str:
        """Index one file (once per content and chunking); returns its document id."""
        from crewgraph.rag.loaders import file_chunks

        stat = path.stat()
        memo = (str(path.resolve()), stat.st_mtime_ns, stat.st_size, chunk_size, overlap)
        with self._lock:
            known = self._known.get(memo)
            if known is not None:
                return known
            digest = hashlib.sha256(path.read_bytes())
            digest.update(f"|{path.suffix.lower()}|{chunk_size}|{overlap}".encode())
            doc_id = digest.hexdigest()[:32]
            if self.storage.count(f"/docs/{doc_id}") == 0:
                self._store(doc_id, str(path), file_chunks(path, chunk_size, overlap))
            self._known[memo] = doc_id
            return doc_id

    def add_text(self, text: str, source: str = "text", chunk_size: int = 1000, overlap: int = 200) -> str:
        """Index a text given directly; returns its document id."""
        from crewgraph.rag.loaders import chunk_text

        doc_id = hashlib.sha256(f"{chunk_size}|{overlap}|{text}".encode()).hexdigest()[:32]
        with self._lock:
            self._store(doc_id, source, chunk_text(text, chunk_size, overlap))
        return doc_id

    def add_chunks(self, chunks: list[str], source: str) -> str:
        """Index chunks cut by the caller (rows of a table...) as one document; returns its id."""
        digest = hashlib.sha256(source.encode())
        for chunk in chunks:
            digest.update(b"\x00" + chunk.encode())
        doc_id = digest.hexdigest()[:32]
        with self._lock:
            self._store(doc_id, source, [c for c in chunks if c.strip()])
        return doc_id

    def search(self, query: str, doc_ids: list[str], limit: int = 5, min_score: float = 0.0) -> list[RagHit]:
        """Best chunks for ``query`` among ``doc_ids`` (similarity ``1/(1+cosine distance)``)."""
        if not doc_ids or not query.strip():
            return []
        vector = [float(x) for x in self.embedder([query])[0]]
        hits = self.storage.search(
            vector, scopes=[f"/docs/{d}" for d in sorted(set(doc_ids))], limit=limit, min_score=min_score
        )
        return [RagHit(r.content, str(r.metadata.get("source", "")), s) for r, s in hits]


_INDEXES: dict[tuple[int, str], RagIndex] = {}
_INDEXES_LOCK = threading.Lock()


def get_index(embedder: Any, root: str | None = None) -> RagIndex:
    """The process-wide index for this embedder (and storage root)."""
    with _INDEXES_LOCK:
        key = (id(embedder), str(root or ""))
        index = _INDEXES.get(key)
        if index is None:
            index = _INDEXES[key] = RagIndex(embedder, root)
        return index
