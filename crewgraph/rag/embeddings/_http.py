"""The shared part of the embedders that call a provider's HTTP API directly (httpx).

:class:`HTTPEmbedder` batches the texts, sends one request per batch with a
connect and a total timeout, checks that one vector came back per text, and
turns HTTP errors into :class:`EmbedderError` naming the provider, the status
and the provider's own message (and the key's variable on 401/403). Keys are
resolved when the embedder is built, so a missing key fails where the
embedder is configured (``Memory(embedder=...)``), not in a background save.
"""

from __future__ import annotations

import os
import threading
from typing import Any

__all__ = ["EmbedderError", "HTTPEmbedder", "config_key", "post_json"]


class EmbedderError(RuntimeError):
    """A provider refused or failed an embedding request (the message says which and why)."""


def config_key(config: dict[str, Any], provider: str, *envs: str, field: str = "api_key") -> str:
    """The API key from ``config[field]`` or the first set variable of ``envs``; else a ValueError."""
    key = config.get(field) or next((os.environ[e] for e in envs if os.environ.get(e)), None)
    if not key:
        raise ValueError(
            f"the {provider} embedder needs an API key: set {' or '.join(envs)} or config[{field!r}]"
        )
    return str(key)


def _detail(response: Any) -> str:
    try:
        payload = response.json()
    except ValueError:
        return response.text.strip()[:300]
    if isinstance(payload, dict):
        for key in ("error", "message", "detail", "errors", "errorMessage"):
            value = payload.get(key)
            if isinstance(value, dict):
                value = value.get("message") or value
            if isinstance(value, list) and value:
                value = value[0].get("message", value[0]) if isinstance(value[0], dict) else value[0]
            if value:
                return str(value)[:300]
    return str(payload)[:300]


def post_json(
    client: Any,
    url: str,
    *,
    provider: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
    params: dict[str, Any] | None = None,
    data: dict[str, str] | None = None,
    key_hint: str = "",
) -> Any:
    """POST and return the decoded JSON reply; raise :class:`EmbedderError` on any failure."""
    import httpx

    try:
        response = client.post(url, json=body, headers=headers, params=params, data=data)
    except httpx.TimeoutException as exc:
        raise EmbedderError(f"the {provider} embedder timed out calling {url}") from exc
    except httpx.HTTPError as exc:
        raise EmbedderError(f"the {provider} embedder could not reach {url}: {type(exc).__name__}: {exc}") from exc
    if response.status_code >= 400:
        message = f"the {provider} embedder got HTTP {response.status_code} from {url}: {_detail(response)}"
        if response.status_code in (401, 403) and key_hint:
            message += f" (check the API key: {key_hint})"
        raise EmbedderError(message)
    try:
        return response.json()
    except ValueError as exc:
        raise EmbedderError(f"the {provider} embedder got a reply that is not JSON from {url}") from exc


class HTTPEmbedder:
    """Callable ``list[str] -> list[list[float]]``; subclasses implement :meth:`_embed_batch`.

    ``model`` and ``dimensions`` are public: the RAG index names its store
    after them, so two models never share one store.
    """

    provider = "http"
    batch_size = 96

    def __init__(self, model: str, *, base_url: str, timeout: float = 60.0, dimensions: int | None = None) -> None:
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.dimensions = dimensions
        self._client: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"

    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                import httpx

                self._client = httpx.Client(timeout=httpx.Timeout(self.timeout, connect=min(10.0, self.timeout)))
            return self._client

    def _post(self, url: str, body: Any, headers: dict[str, str], key_hint: str = "", **kw: Any) -> Any:
        return post_json(self.client(), url, provider=self.provider, body=body, headers=headers, key_hint=key_hint, **kw)

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        raise NotImplementedError

    def __call__(self, texts: list[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = [t or " " for t in texts[start : start + self.batch_size]]
            vectors = self._embed_batch(batch)
            if len(vectors) != len(batch):
                raise EmbedderError(
                    f"the {self.provider} embedder returned {len(vectors)} vectors for {len(batch)} texts"
                )
            out.extend([float(x) for x in v] for v in vectors)
        return out


def indexed_rows(rows: Any, provider: str) -> list[list[float]]:
    """Vectors from an OpenAI-style ``data`` list (``[{"index", "embedding"}]``), in input order."""
    if not isinstance(rows, list):
        raise EmbedderError(f"the {provider} embedder's reply has no 'data' list")
    ordered = sorted(rows, key=lambda r: int(r.get("index", 0)))
    return [list(r["embedding"]) for r in ordered]
