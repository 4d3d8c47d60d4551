"""Spec types for the custom embedder (CrewAI's ``crewai.rag.embeddings.providers.custom.types``).

A spec is a plain dict, accepted wherever an embedder config is (``build_embedder``,
``Crew(embedder=...)``, ``Memory``, knowledge sources, the RAG tools' ``config["embedder"]``).
"""

from __future__ import annotations

from typing import Any, Literal, Required

from typing_extensions import TypedDict

__all__ = ["CustomProviderConfig", "CustomProviderSpec"]


class CustomProviderConfig(TypedDict, total=False):
    """The ``config`` of a 'custom' spec: the provider's own keys (see docs/memory.md)."""


class CustomProviderSpec(TypedDict, total=False):
    """``{"provider": "custom", "config": {...}}``: your own callable: config['embedding_callable"]."""

    provider: Required[Literal["custom"]]
    config: CustomProviderConfig | dict[str, Any]
