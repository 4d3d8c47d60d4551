"""Embedders: callables ``list[str] -> list[list[float]]``, and ``build_embedder`` for configs.

Submodules load their heavy libraries (onnxruntime, tokenizers, openai) on
first use only.
"""

from __future__ import annotations

from crewgraph.rag.embeddings.factory import SUPPORTED_PROVIDERS, Embedder, build_embedder

__all__ = ["SUPPORTED_PROVIDERS", "Embedder", "build_embedder"]
