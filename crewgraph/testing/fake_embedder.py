"""``FakeEmbedder``: a fast, deterministic embedder for tests of memory and RAG tools.

Texts that share words get similar vectors (hashed bag of words, signed
buckets, L2-normalised), so recall tests behave sensibly without loading the
ONNX model; every call is recorded in ``.calls`` to check batching.
"""

from __future__ import annotations

import hashlib
import math
import re
import threading

__all__ = ["FakeEmbedder"]

_WORD = re.compile(r"[a-z0-9]+")


class FakeEmbedder:
    """Callable ``list[str] -> list[list[float]]`` of dimension ``dimension``."""

    def __init__(self, dimension: int = 64) -> None:
        if dimension < 2:
            raise ValueError("FakeEmbedder dimension must be at least 2")
        self.dimension = dimension
        self.calls: list[list[str]] = []
        self._lock = threading.Lock()

    def __call__(self, texts: list[str]) -> list[list[float]]:
        with self._lock:
            self.calls.append(list(texts))
        return [self.embed_one(t) for t in texts]

    def embed_one(self, text: str) -> list[float]:
        vec = [0.0] * self.dimension
        words = _WORD.findall(text.lower()) or [text.lower() or " "]
        for word in words:
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            bucket = int.from_bytes(digest[:4], "little") % self.dimension
            vec[bucket] += 1.0 if digest[4] & 1 else -1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]

    @property
    def texts_embedded(self) -> int:
        return sum(len(c) for c in self.calls)

    def __repr__(self) -> str:
        return f"FakeEmbedder(dimension={self.dimension})"
