"""Spec types for the huggingface embedder (CrewAI's ``crewai.rag.embeddings.providers.huggingface.types``).

A spec is a plain dict, accepted wherever an embedder config is (``build_embedder``,
``Crew(embedder=...)``, ``Memory``, knowledge sources, the RAG tools' ``config["embedder"]``).
"""

from __future__ import annotations

from typing import Any, Literal, Required

from typing_extensions import TypedDict

__all__ = ["HuggingFaceProviderConfig", "HuggingFaceProviderSpec"]


class HuggingFaceProviderConfig(TypedDict, total=False):
    """The ``config`` of a 'huggingface' spec: the provider's own keys (see docs/memory.md)."""


class HuggingFaceProviderSpec(TypedDict, total=False):
    """``{"provider": "huggingface", "config": {...}}``: the Inference API / a TEI server, or the bundled MiniLM."""

    provider: Required[Literal["huggingface"]]
    config: HuggingFaceProviderConfig | dict[str, Any]
