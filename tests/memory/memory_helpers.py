"""Helpers for the memory tests (imported by name: pytest puts this folder on sys.path)."""

from __future__ import annotations

import hashlib
import math
import re
from typing import Any

DIM = 64


class WordHashEmbedder:
    """Deterministic, dependency-free embedder; counts its calls (to check batching)."""

    def __init__(self, dim: int = DIM) -> None:
        self.dim = dim
        self.calls: list[list[str]] = []

    def __call__(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return [self.vector(t) for t in texts]

    def vector(self, text: str) -> list[float]:
        vec = [0.0] * self.dim
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            vec[digest[0] % self.dim] += 1.0 if digest[1] % 2 else -1.0
        norm = math.sqrt(sum(x * x for x in vec)) or 1.0
        return [x / norm for x in vec]


def explicit(**extra: Any) -> dict[str, Any]:
    """remember() keyword arguments that skip LLM analysis."""
    base: dict[str, Any] = {"scope": "/", "categories": [], "importance": 0.5}
    base.update(extra)
    return base
