"""Spec types for the watsonx embedder (CrewAI's ``crewai.rag.embeddings.providers.ibm.types``).

A spec is a plain dict, accepted wherever an embedder config is (``build_embedder``,
``Crew(embedder=...)``, ``Memory``, knowledge sources, the RAG tools' ``config["embedder"]``).
"""

from __future__ import annotations

from typing import Any, Literal, Required

from typing_extensions import TypedDict

__all__ = ["WatsonXProviderConfig", "WatsonXProviderSpec"]


class WatsonXProviderConfig(TypedDict, total=False):
    """The ``config`` of a 'watsonx' spec: the provider's own keys (see docs/memory.md)."""


class WatsonXProviderSpec(TypedDict, total=False):
    """``{"provider": "watsonx", "config": {...}}``: IBM watsonx.ai."""

    provider: Required[Literal["watsonx"]]
    config: WatsonXProviderConfig | dict[str, Any]
