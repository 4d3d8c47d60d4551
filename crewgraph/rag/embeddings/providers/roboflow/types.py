"""Spec types for the roboflow embedder (CrewAI's ``crewai.rag.embeddings.providers.roboflow.types``).

A spec is a plain dict, accepted wherever an embedder config is (``build_embedder``,
``Crew(embedder=...)``, ``Memory``, knowledge sources, the RAG tools' ``config["embedder"]``).
"""

from __future__ import annotations

from typing import Any, Literal, Required

from typing_extensions import TypedDict

__all__ = ["RoboflowProviderConfig", "RoboflowProviderSpec"]


class RoboflowProviderConfig(TypedDict, total=False):
    """The ``config`` of a 'roboflow' spec: the provider's own keys (see docs/memory.md)."""


class RoboflowProviderSpec(TypedDict, total=False):
    """``{"provider": "roboflow", "config": {...}}``: Roboflow (not supported by crewgraph: building it is a ValueError)."""

    provider: Required[Literal["roboflow"]]
    config: RoboflowProviderConfig | dict[str, Any]
