"""Spec types for the voyageai embedder (CrewAI's ``crewai.rag.embeddings.providers.voyageai.types``).

A spec is a plain dict, accepted wherever an embedder config is (``build_embedder``,
``Crew(embedder=...)``, ``Memory``, knowledge sources, the RAG tools' ``config["embedder"]``).
"""

from __future__ import annotations

from typing import Any, Literal, Required

from typing_extensions import TypedDict

__all__ = ["VoyageAIProviderConfig", "VoyageAIProviderSpec"]


class VoyageAIProviderConfig(TypedDict, total=False):
    """The ``config`` of a 'voyageai' spec: the provider's own keys (see docs/memory.md)."""


class VoyageAIProviderSpec(TypedDict, total=False):
    """``{"provider": "voyageai", "config": {...}}``: Voyage AI's embeddings API."""

    provider: Required[Literal["voyageai"]]
    config: VoyageAIProviderConfig | dict[str, Any]
