"""Spec types for the google-generativeai, google-vertex embedders (CrewAI's ``crewai.rag.embeddings.providers.google.types``).

A spec is a plain dict, accepted wherever an embedder config is (``build_embedder``,
``Crew(embedder=...)``, ``Memory``, knowledge sources, the RAG tools' ``config["embedder"]``).
"""

from __future__ import annotations

from typing import Any, Literal, Required

from typing_extensions import TypedDict

__all__ = ["GenerativeAiProviderConfig", "GenerativeAiProviderSpec", "VertexAIProviderConfig", "VertexAIProviderSpec"]


class GenerativeAiProviderConfig(TypedDict, total=False):
    """The ``config`` of a 'google-generativeai' spec: the provider's own keys (see docs/memory.md)."""


class GenerativeAiProviderSpec(TypedDict, total=False):
    """``{"provider": "google-generativeai", "config": {...}}``: the Gemini API."""

    provider: Required[Literal["google-generativeai"]]
    config: GenerativeAiProviderConfig | dict[str, Any]


class VertexAIProviderConfig(TypedDict, total=False):
    """The ``config`` of a 'google-vertex' spec: the provider's own keys (see docs/memory.md)."""


class VertexAIProviderSpec(TypedDict, total=False):
    """``{"provider": "google-vertex", "config": {...}}``: Vertex AI (crewgraph[google])."""

    provider: Required[Literal["google-vertex"]]
    config: VertexAIProviderConfig | dict[str, Any]
