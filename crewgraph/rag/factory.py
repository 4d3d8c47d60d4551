"""``create_client(config)``: the RAG client for a ``QdrantConfig`` or ``ChromaDBConfig`` (CrewAI's ``crewai.rag.factory``)."""

from __future__ import annotations

from typing import Any

__all__ = ["create_client"]


def create_client(config: Any) -> Any:
    """A ``QdrantClient`` or ``ChromaDBClient`` for ``config``."""
    provider = getattr(config, "provider", None)
    if provider == "qdrant":
        from crewgraph.rag.qdrant.client import QdrantClient

        return QdrantClient(config)
    if provider == "chromadb":
        from crewgraph.rag.chromadb.client import ChromaDBClient

        return ChromaDBClient(config)
    raise ValueError(f"unknown RAG provider {provider!r}: use QdrantConfig or ChromaDBConfig")
