"""``EmbeddingFunction``: what CrewAI calls an embedder (``crewai.rag.core.base_embeddings_callable``).

Any callable ``list[str] -> list[vector]`` is one, which is also what
crewgraph's embedders are, so each of them satisfies this protocol as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

__all__ = ["EmbeddingFunction"]


@runtime_checkable
class EmbeddingFunction(Protocol):
    """Texts in, one vector per text out (``embed_query`` is optional, as in CrewAI)."""

    def __call__(self, input: list[str]) -> Sequence[Sequence[float]] | Any:
        ...
