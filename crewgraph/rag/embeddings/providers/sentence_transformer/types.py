"""Spec types for the sentence-transformer embedder (CrewAI's ``crewai.rag.embeddings.providers.sentence_transformer.types``).

A spec is a plain dict, accepted wherever an embedder config is (``build_embedder``,
``Crew(embedder=...)``, ``Memory``, knowledge sources, the RAG tools' ``config["embedder"]``).
"""

from __future__ import annotations

from typing import Any, Literal, Required

from typing_extensions import TypedDict

__all__ = ["SentenceTransformerProviderConfig", "SentenceTransformerProviderSpec"]


class SentenceTransformerProviderConfig(TypedDict, total=False):
    """The ``config`` of a 'sentence-transformer' spec: the provider's own keys (see docs/memory.md)."""


class SentenceTransformerProviderSpec(TypedDict, total=False):
    """``{"provider": "sentence-transformer", "config": {...}}``: sentence-transformers, or the bundled MiniLM."""

    provider: Required[Literal["sentence-transformer"]]
    config: SentenceTransformerProviderConfig | dict[str, Any]
