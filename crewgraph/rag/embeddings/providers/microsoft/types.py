"""Spec types for the azure embedder (CrewAI's ``crewai.rag.embeddings.providers.microsoft.types``).

A spec is a plain dict, accepted wherever an embedder config is (``build_embedder``,
``Crew(embedder=...)``, ``Memory``, knowledge sources, the RAG tools' ``config["embedder"]``).
"""

from __future__ import annotations

from typing import Any, Literal, Required

from typing_extensions import TypedDict

__all__ = ["AzureProviderConfig", "AzureProviderSpec"]


class AzureProviderConfig(TypedDict, total=False):
    """The ``config`` of a 'azure' spec: the provider's own keys (see docs/memory.md)."""


class AzureProviderSpec(TypedDict, total=False):
    """``{"provider": "azure", "config": {...}}``: Azure OpenAI."""

    provider: Required[Literal["azure"]]
    config: AzureProviderConfig | dict[str, Any]
