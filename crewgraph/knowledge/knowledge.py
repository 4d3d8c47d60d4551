"""``Knowledge``: a collection of sources, indexed in Qdrant and queried by meaning.

CrewAI's class: ``Knowledge(collection_name, sources, embedder=None, storage=None)``
with ``add_sources()``, ``query(queries, results_limit, score_threshold)`` and
``reset()``. Indexing reads every source, hashes each document with its
chunking, and embeds only documents whose hash the store does not hold yet, so
a crew re-run with unchanged files embeds nothing; ``query`` indexes first if
this object has not done so yet.
"""

from __future__ import annotations

import threading
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from crewgraph.errors import ConfigurationError
from crewgraph.knowledge.source.base_knowledge_source import BaseKnowledgeSource
from crewgraph.knowledge.storage.knowledge_storage import (
    IndexReport,
    KnowledgeStorage,
    SearchResult,
    document_id,
)

__all__ = ["Knowledge", "check_sources"]


def check_sources(value: Any) -> list[BaseKnowledgeSource]:
    """``knowledge_sources``: a list of ``BaseKnowledgeSource`` instances (errors name the index)."""
    if value is None:
        return []
    if not isinstance(value, list | tuple):
        value = [value]
    for i, source in enumerate(value):
        if not isinstance(source, BaseKnowledgeSource):
            hint = " (wrap text in StringKnowledgeSource(content=...))" if isinstance(source, str) else ""
            raise ValueError(
                f"knowledge_sources[{i}] is a {type(source).__name__}, not a knowledge source: use "
                f"StringKnowledgeSource, TextFileKnowledgeSource, PDFKnowledgeSource, CSVKnowledgeSource, "
                f"ExcelKnowledgeSource, JSONKnowledgeSource or a BaseKnowledgeSource subclass{hint}"
            )
    return list(value)


class Knowledge(BaseModel):
    """Sources plus the store they are indexed in."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    sources: list[BaseKnowledgeSource] = Field(default_factory=list)
    embedder: Any = Field(default=None, description="Provider config dict, callable, or None (local MiniLM)")
    storage: KnowledgeStorage | None = None
    collection_name: str | None = None
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _doc_ids: list[str] | None = PrivateAttr(default=None)
    _last_report: IndexReport | None = PrivateAttr(default=None)

    _check = field_validator("sources", mode="before")(classmethod(lambda cls, v: check_sources(v)))

    def __init__(
        self,
        collection_name: str | None = None,
        sources: list[BaseKnowledgeSource] | None = None,
        embedder: Any = None,
        storage: KnowledgeStorage | None = None,
        **data: Any,
    ) -> None:
        super().__init__(
            collection_name=collection_name, sources=sources or [], embedder=embedder, storage=storage, **data
        )
        if self.storage is None:
            self.storage = KnowledgeStorage(embedder=embedder, collection_name=collection_name)

    @property
    def store(self) -> KnowledgeStorage:
        assert self.storage is not None  # set in __init__
        return self.storage

    def _documents(self) -> list[tuple[str, list[str], dict[str, Any], str]]:
        docs = []
        embedder = self.store.embedder_key
        for source in self.sources:
            try:
                documents = source.documents()
            except ConfigurationError:
                raise
            except Exception as exc:  # a bad file is the user's to fix: no retry, a clear message
                raise ConfigurationError(
                    f"knowledge source {source.describe()}: {type(exc).__name__}: {exc}"
                ) from exc
            for name, text in documents:
                chunks = source._chunk_text(text)
                if chunks:
                    doc_id = document_id(name, text, source.chunk_size, source.chunk_overlap, embedder)
                    docs.append((name, chunks, dict(source.metadata), doc_id))
        return docs

    def add_sources(self) -> IndexReport:
        """Read the sources and bring the index up to date (embedding only what changed)."""
        with self._lock:
            docs = self._documents()
            report = self.store.index(docs)
            self._doc_ids = [doc_id for *_, doc_id in docs]
            self._last_report = report
            return report

    def ensure_indexed(self) -> None:
        """Index once per object (the first query of a run does it)."""
        if self._doc_ids is None:
            self.add_sources()

    def query(
        self, query: list[str] | str, results_limit: int = 5, score_threshold: float = 0.6
    ) -> list[SearchResult]:
        """The chunks most similar to ``query``, best first, each at least ``score_threshold``."""
        self.ensure_indexed()
        return self.store.search(
            query, doc_ids=self._doc_ids, limit=results_limit, score_threshold=score_threshold
        )

    def reset(self) -> None:
        """Delete this collection's chunks (the next query indexes the sources again)."""
        with self._lock:
            self.store.reset()
            self._doc_ids = None

    async def aadd_sources(self) -> None:
        """:meth:`add_sources` in a worker thread."""
        import asyncio

        await asyncio.to_thread(self.add_sources)

    async def aquery(self, query: list[str], results_limit: int = 5, score_threshold: float = 0.6) -> list[SearchResult]:
        """:meth:`query` in a worker thread."""
        import asyncio

        return await asyncio.to_thread(self.query, query, results_limit, score_threshold)

    async def areset(self) -> None:
        """:meth:`reset` in a worker thread."""
        import asyncio

        await asyncio.to_thread(self.reset)
