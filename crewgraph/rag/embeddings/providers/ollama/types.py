"""Spec types for the ollama embedder (CrewAI's ``crewai.rag.embeddings.providers.ollama.types``).

A spec is a plain dict, accepted wherever an embedder config is (``build_embedder``,
``Crew(embedder=...)``, ``Memory``, knowledge sources, the RAG tools' ``config["embedder"]``).
"""

from __future__ import annotations

from typing import Any, Literal, Required

from typing_extensions import TypedDict

__all__ = ["OllamaProviderConfig", "OllamaProviderSpec"]


class OllamaProviderConfig(TypedDict, total=False):
    """The ``config`` of a 'ollama' spec: the provider's own keys (see docs/memory.md)."""


class OllamaProviderSpec(TypedDict, total=False):
    """``{"provider": "ollama", "config": {...}}``: Ollama's OpenAI-compatible endpoint."""

    provider: Required[Literal["ollama"]]
    config: OllamaProviderConfig | dict[str, Any]
