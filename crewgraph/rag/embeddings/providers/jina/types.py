"""Spec types for the jina embedder (CrewAI's ``crewai.rag.embeddings.providers.jina.types``).

A spec is a plain dict, accepted wherever an embedder config is (``build_embedder``,
``Crew(embedder=...)``, ``Memory``, knowledge sources, the RAG tools' ``config["embedder"]``).
"""

from __future__ import annotations

from typing import Any, Literal, Required

from typing_extensions import TypedDict

__all__ = ["JinaProviderConfig", "JinaProviderSpec"]


class JinaProviderConfig(TypedDict, total=False):
    """The ``config`` of a 'jina' spec: the provider's own keys (see docs/memory.md)."""


class JinaProviderSpec(TypedDict, total=False):
    """``{"provider": "jina", "config": {...}}``: Jina AI's embeddings API."""

    provider: Required[Literal["jina"]]
    config: JinaProviderConfig | dict[str, Any]
