"""Retrieval building blocks shared by memory and the RAG tools (embedders)."""

from __future__ import annotations

from crewgraph.rag.embeddings import SUPPORTED_PROVIDERS, Embedder, build_embedder

__all__ = ["SUPPORTED_PROVIDERS", "Embedder", "build_embedder"]
