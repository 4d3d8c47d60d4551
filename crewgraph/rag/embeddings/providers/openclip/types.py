"""Spec types for the openclip embedder (CrewAI's ``crewai.rag.embeddings.providers.openclip.types``).

A spec is a plain dict, accepted wherever an embedder config is (``build_embedder``,
``Crew(embedder=...)``, ``Memory``, knowledge sources, the RAG tools' ``config["embedder"]``).
"""

from __future__ import annotations

from typing import Any, Literal, Required

from typing_extensions import TypedDict

__all__ = ["OpenCLIPProviderConfig", "OpenCLIPProviderSpec"]


class OpenCLIPProviderConfig(TypedDict, total=False):
    """The ``config`` of a 'openclip' spec: the provider's own keys (see docs/memory.md)."""


class OpenCLIPProviderSpec(TypedDict, total=False):
    """``{"provider": "openclip", "config": {...}}``: OpenCLIP (not supported by crewgraph: building it is a ValueError)."""

    provider: Required[Literal["openclip"]]
    config: OpenCLIPProviderConfig | dict[str, Any]
