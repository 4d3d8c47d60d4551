"""Embeddings over any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, Azure, Ollama...).

The ``openai`` SDK is imported and the client created on the first call, so
building an embedder never needs a key or a network; inputs are sent in
batches (one request per ``batch_size`` texts).
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["OpenAICompatibleEmbedder"]


class OpenAICompatibleEmbedder:
    """Callable ``list[str] -> list[list[float]]`` on an OpenAI-style embeddings API.

    ``base_url=None`` means the SDK's default (``OPENAI_BASE_URL`` or OpenAI);
    ``api_key=None`` lets the SDK read ``OPENAI_API_KEY``. ``dimensions`` is
    passed through for models that can shorten their vectors.
    """

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        dimensions: int | None = None,
        batch_size: int = 256,
        timeout: float = 60.0,
        azure: dict[str, Any] | None = None,
    ) -> None:
        self.model = model
        self.api_key = api_key
        self.base_url = base_url
        self.dimensions = dimensions
        self.batch_size = batch_size
        self.timeout = timeout
        self.azure = azure
        self._client: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OpenAICompatibleEmbedder(model={self.model!r}, base_url={self.base_url!r})"

    def _get_client(self) -> Any:
        with self._lock:
            if self._client is None:
                import openai

                if self.azure is not None:
                    self._client = openai.AzureOpenAI(
                        api_key=self.api_key,
                        azure_endpoint=self.azure["endpoint"],
                        api_version=self.azure.get("api_version") or "2024-02-01",
                        timeout=self.timeout,
                    )
                else:
                    self._client = openai.OpenAI(api_key=self.api_key, base_url=self.base_url, timeout=self.timeout)
            return self._client

    def __call__(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        client = self._get_client()
        extra: dict[str, Any] = {"dimensions": self.dimensions} if self.dimensions else {}
        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            chunk = [t or " " for t in texts[start : start + self.batch_size]]
            response = client.embeddings.create(model=self.model, input=chunk, **extra)
            rows = sorted(response.data, key=lambda d: d.index)
            out.extend([float(x) for x in row.embedding] for row in rows)
        return out
