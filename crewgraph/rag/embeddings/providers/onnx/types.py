"""Spec types for the onnx embedder (CrewAI's ``crewai.rag.embeddings.providers.onnx.types``).

A spec is a plain dict, accepted wherever an embedder config is (``build_embedder``,
``Crew(embedder=...)``, ``Memory``, knowledge sources, the RAG tools' ``config["embedder"]``).
"""

from __future__ import annotations

from typing import Any, Literal, Required

from typing_extensions import TypedDict

__all__ = ["ONNXProviderConfig", "ONNXProviderSpec"]


class ONNXProviderConfig(TypedDict, total=False):
    """The ``config`` of a 'onnx' spec: the provider's own keys (see docs/memory.md)."""


class ONNXProviderSpec(TypedDict, total=False):
    """``{"provider": "onnx", "config": {...}}``: the bundled offline all-MiniLM-L6-v2 (onnxruntime)."""

    provider: Required[Literal["onnx"]]
    config: ONNXProviderConfig | dict[str, Any]
