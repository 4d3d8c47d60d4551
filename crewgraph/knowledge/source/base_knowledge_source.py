"""``BaseKnowledgeSource``: something that yields text to index (CrewAI's base class).

A source says what its documents are (:meth:`documents`: ``(name, text)``
pairs, read fresh each time so an edited file is noticed) and how to cut them
(``chunk_size``/``chunk_overlap``, in characters, CrewAI's defaults). Indexing
is done by :class:`~crewgraph.knowledge.knowledge.Knowledge`, which embeds a
document only when its content hash is new.

A custom source subclasses this and implements ``load_content()`` returning
``{name: text}`` (CrewAI's contract); ``add()`` and ``validate_content()``
need not be written.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

__all__ = ["BaseKnowledgeSource"]


class BaseKnowledgeSource(BaseModel):
    """A source of knowledge text. Subclasses implement :meth:`load_content`."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    chunk_size: int = Field(default=4000, gt=0, description="Characters per chunk")
    chunk_overlap: int = Field(default=200, ge=0, description="Characters shared by neighbouring chunks")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Stored with every chunk")
    collection_name: str | None = None
    chunks: list[str] = Field(default_factory=list, description="Filled by add() (CrewAI's custom-source API)")
    chunk_embeddings: list[Any] = Field(default_factory=list, description="The vectors add() stored in ``storage``")
    storage: Any = Field(default=None, description="A KnowledgeStorage add() saves the chunks in (CrewAI's API)")
    _saved: list[tuple[str, str]] = PrivateAttr(default_factory=list)

    @model_validator(mode="after")
    def _check_overlap(self) -> BaseKnowledgeSource:
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(
                f"chunk_overlap ({self.chunk_overlap}) must be smaller than chunk_size ({self.chunk_size})"
            )
        return self

    def load_content(self) -> dict[Any, str]:
        """``{name: text}`` of every document of this source."""
        raise NotImplementedError(f"{type(self).__name__} must implement load_content() -> dict[name, text]")

    def validate_content(self) -> Any:
        """Check the source before it is used (file sources check their files exist)."""
        return None

    def documents(self) -> list[tuple[str, str]]:
        """``(name, text)`` per document, read now. A custom ``add()`` that filled
        ``self.chunks`` (and called ``_save_documents()``) is honoured too."""
        if type(self).add is not BaseKnowledgeSource.add:
            self._saved = []
            self.chunks = []
            self.add()
            if self._saved:
                return list(self._saved)
            return [(f"{self.describe()}#{i}", c) for i, c in enumerate(self.chunks)]
        return [(str(name), text) for name, text in self.load_content().items() if str(text).strip()]

    def add(self) -> None:
        """CrewAI's hook: load, chunk, save (into ``storage`` when one is set). Overriding it is
        optional here: a ``Knowledge`` reads the sources itself."""
        for _, text in self.load_content().items():
            self.chunks.extend(self._chunk_text(text))
        self._save_documents()

    async def aadd(self) -> None:
        """:meth:`add` in a worker thread."""
        import asyncio

        await asyncio.to_thread(self.add)

    def get_embeddings(self) -> list[Any]:
        """The vectors of the chunks ``add()`` stored in ``storage`` (empty without a storage)."""
        return list(self.chunk_embeddings)

    def _chunk_text(self, text: str) -> list[str]:
        from crewgraph.rag.loaders import chunk_text

        return chunk_text(text, self.chunk_size, self.chunk_overlap)

    def _save_documents(self) -> None:
        """What a custom ``add()`` calls after filling ``self.chunks``: each chunk becomes a document."""
        self._saved = [(f"{self.describe()}#{i}", chunk) for i, chunk in enumerate(self.chunks)]
        if self.storage is not None:
            save = getattr(self.storage, "save_chunks", None)
            if save is not None:
                self.chunk_embeddings.extend(save(list(self.chunks), dict(self.metadata)))
            else:  # another storage with CrewAI's save(documents)
                self.storage.save(list(self.chunks))

    def describe(self) -> str:
        """A short name for messages and chunk metadata."""
        return type(self).__name__
