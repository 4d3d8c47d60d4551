"""Spec types for the amazon-bedrock embedder (CrewAI's ``crewai.rag.embeddings.providers.aws.types``).

A spec is a plain dict, accepted wherever an embedder config is (``build_embedder``,
``Crew(embedder=...)``, ``Memory``, knowledge sources, the RAG tools' ``config["embedder"]``).
"""

from __future__ import annotations

from typing import Any, Literal, Required

from typing_extensions import TypedDict

__all__ = ["BedrockProviderConfig", "BedrockProviderSpec"]


class BedrockProviderConfig(TypedDict, total=False):
    """The ``config`` of a 'amazon-bedrock' spec: the provider's own keys (see docs/memory.md)."""


class BedrockProviderSpec(TypedDict, total=False):
    """``{"provider": "amazon-bedrock", "config": {...}}``: Amazon Bedrock (boto3; crewgraph[bedrock])."""

    provider: Required[Literal["amazon-bedrock"]]
    config: BedrockProviderConfig | dict[str, Any]
