"""Spec types for the cohere embedder (CrewAI's ``crewai.rag.embeddings.providers.cohere.types``).

A spec is a plain dict, accepted wherever an embedder config is (``build_embedder``,
``Crew(embedder=...)``, ``Memory``, knowledge sources, the RAG tools' ``config["embedder"]``).
"""

from __future__ import annotations

from typing import Any, Literal, Required

from typing_extensions import TypedDict

__all__ = ["CohereProviderConfig", "CohereProviderSpec"]


class CohereProviderConfig(TypedDict, total=False):
    """The ``config`` of a 'cohere' spec: the provider's own keys (see docs/memory.md)."""


class CohereProviderSpec(TypedDict, total=False):
    """``{"provider": "cohere", "config": {...}}``: Cohere's embed API."""

    provider: Required[Literal["cohere"]]
    config: CohereProviderConfig | dict[str, Any]
