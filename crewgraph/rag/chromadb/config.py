"""``ChromaDBConfig``: ChromaDB as the RAG store (CrewAI's path and fields; ``pip install 'crewgraph[chromadb]'``).

``settings`` is a ``chromadb.config.Settings`` (default: persistent, in
``$CREWGRAPH_STORAGE_DIR/rag/chromadb`` or ``./.crewgraph/rag/chromadb``);
``embedding_function`` is Chroma-style (``list[str] -> list[vector]``), by
default crewgraph's offline all-MiniLM-L6-v2. chromadb is imported when the
default settings are built or the client is made, so the config module itself
is cheap; without chromadb that step fails naming the extra.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

from crewgraph.rag.config.base import BaseRagConfig

__all__ = ["ChromaDBConfig", "import_chromadb"]


def import_chromadb() -> Any:
    try:
        import chromadb
    except ImportError:
        raise ImportError("ChromaDBConfig needs chromadb: pip install 'crewgraph[chromadb]'") from None
    return chromadb


def _default_settings() -> Any:
    from crewgraph.memory.storage.factory import default_storage_path

    chromadb = import_chromadb()
    path = str(default_storage_path().parent / "rag" / "chromadb")
    return chromadb.config.Settings(persist_directory=path, is_persistent=True, allow_reset=True,
                                    anonymized_telemetry=False)


class _MiniLM:
    """crewgraph's offline embedder in Chroma's calling convention (``__call__(input)``, ``name()``)."""

    def __call__(self, input: list[str]) -> list[list[float]]:
        from crewgraph.rag.embeddings.onnx_minilm import default_embedder

        return [[float(x) for x in v] for v in default_embedder()(list(input))]

    @staticmethod
    def name() -> str:
        return "crewgraph-all-minilm-l6-v2"

    def embed_query(self, input: list[str]) -> list[list[float]]:
        return self(input)


@dataclass(frozen=True, config=ConfigDict(arbitrary_types_allowed=True, extra="forbid"))
class ChromaDBConfig(BaseRagConfig):
    """RAG on ChromaDB."""

    provider: Literal["chromadb"] = field(default="chromadb", init=False)
    embedding_function: Any = field(default_factory=_MiniLM)
    tenant: str = "default_tenant"
    database: str = "default_database"
    settings: Any = field(default_factory=_default_settings)
