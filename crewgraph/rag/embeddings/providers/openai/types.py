"""Spec types for the openai embedder (CrewAI's ``crewai.rag.embeddings.providers.openai.types``).

A spec is a plain dict, accepted wherever an embedder config is (``build_embedder``,
``Crew(embedder=...)``, ``Memory``, knowledge sources, the RAG tools' ``config["embedder"]``).
"""

from __future__ import annotations

from typing import Any, Literal, Required

from typing_extensions import TypedDict

__all__ = ["OpenAIProviderConfig", "OpenAIProviderSpec"]


class OpenAIProviderConfig(TypedDict, total=False):
    """The ``config`` of a 'openai' spec: the provider's own keys (see docs/memory.md)."""


class OpenAIProviderSpec(TypedDict, total=False):
    """``{"provider": "openai", "config": {...}}``: OpenAI or any OpenAI-compatible server."""

    provider: Required[Literal["openai"]]
    config: OpenAIProviderConfig | dict[str, Any]
