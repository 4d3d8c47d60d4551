"""Spec types for the instructor embedder (CrewAI's ``crewai.rag.embeddings.providers.instructor.types``).

A spec is a plain dict, accepted wherever an embedder config is (``build_embedder``,
``Crew(embedder=...)``, ``Memory``, knowledge sources, the RAG tools' ``config["embedder"]``).
"""

from __future__ import annotations

from typing import Any, Literal, Required

from typing_extensions import TypedDict

__all__ = ["InstructorProviderConfig", "InstructorProviderSpec"]


class InstructorProviderConfig(TypedDict, total=False):
    """The ``config`` of a 'instructor' spec: the provider's own keys (see docs/memory.md)."""


class InstructorProviderSpec(TypedDict, total=False):
    """``{"provider": "instructor", "config": {...}}``: InstructorEmbedding (not supported by crewgraph: building it is a ValueError)."""

    provider: Required[Literal["instructor"]]
    config: InstructorProviderConfig | dict[str, Any]
