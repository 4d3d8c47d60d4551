"""Embedders on the hosted APIs that take a Bearer key: Cohere, VoyageAI, Jina.

Each sends the request its provider documents and reads the vectors from the
documented reply:

- Cohere ``POST /v2/embed`` ``{"model", "texts", "input_type", "embedding_types": ["float"]}``
  -> ``{"embeddings": {"float": [[...]]}}`` (``COHERE_API_KEY``);
- VoyageAI ``POST /v1/embeddings`` ``{"model", "input", "input_type"}``
  -> ``{"data": [{"index", "embedding"}]}`` (``VOYAGE_API_KEY``);
- Jina ``POST /v1/embeddings`` ``{"model", "input"}`` -> the same ``data`` list (``JINA_API_KEY``).
"""

from __future__ import annotations

from typing import Any

from crewgraph.rag.embeddings._http import EmbedderError, HTTPEmbedder, config_key, indexed_rows

__all__ = ["CohereEmbedder", "JinaEmbedder", "VoyageAIEmbedder"]


def _base(config: dict[str, Any], default: str) -> str:
    return str(config.get("base_url") or config.get("api_base") or config.get("url") or default)


class CohereEmbedder(HTTPEmbedder):
    provider = "cohere"
    batch_size = 96  # Cohere's limit of texts per call

    def __init__(self, config: dict[str, Any]) -> None:
        super().__init__(
            str(config.get("model_name") or config.get("model") or "embed-english-v3.0"),
            base_url=_base(config, "https://api.cohere.com"),
            timeout=float(config.get("timeout", 60.0)),
            dimensions=config.get("output_dimension") or config.get("dimensions"),
        )
        self._key = config_key(config, "cohere", "COHERE_API_KEY", "CO_API_KEY")
        self.input_type = str(config.get("input_type") or "search_document")

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        body: dict[str, Any] = {"model": self.model, "texts": texts, "input_type": self.input_type,
                                "embedding_types": ["float"]}
        if self.dimensions:
            body["output_dimension"] = int(self.dimensions)
        reply = self._post(f"{self.base_url}/v2/embed", body, {"Authorization": f"Bearer {self._key}"},
                           key_hint="COHERE_API_KEY")
        embeddings = reply.get("embeddings") if isinstance(reply, dict) else None
        vectors = embeddings.get("float") if isinstance(embeddings, dict) else embeddings
        if not isinstance(vectors, list):
            raise EmbedderError("the cohere embedder's reply has no embeddings.float list")
        return vectors


class VoyageAIEmbedder(HTTPEmbedder):
    provider = "voyageai"
    batch_size = 128

    def __init__(self, config: dict[str, Any]) -> None:
        super().__init__(
            str(config.get("model") or config.get("model_name") or "voyage-3"),
            base_url=_base(config, "https://api.voyageai.com"),
            timeout=float(config.get("timeout", 60.0)),
            dimensions=config.get("output_dimension") or config.get("dimensions"),
        )
        self._key = config_key(config, "voyageai", "VOYAGE_API_KEY")
        self.input_type = config.get("input_type", "document")
        self.truncation = config.get("truncation")

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        body: dict[str, Any] = {"model": self.model, "input": texts}
        if self.input_type:
            body["input_type"] = self.input_type
        if self.dimensions:
            body["output_dimension"] = int(self.dimensions)
        if self.truncation is not None:
            body["truncation"] = bool(self.truncation)
        reply = self._post(f"{self.base_url}/v1/embeddings", body, {"Authorization": f"Bearer {self._key}"},
                           key_hint="VOYAGE_API_KEY")
        return indexed_rows(reply.get("data") if isinstance(reply, dict) else None, self.provider)


class JinaEmbedder(HTTPEmbedder):
    provider = "jina"
    batch_size = 128

    def __init__(self, config: dict[str, Any]) -> None:
        super().__init__(
            str(config.get("model_name") or config.get("model") or "jina-embeddings-v2-base-en"),
            base_url=_base(config, "https://api.jina.ai"),
            timeout=float(config.get("timeout", 60.0)),
            dimensions=config.get("dimensions"),
        )
        self._key = config_key(config, "jina", "JINA_API_KEY")
        self.task = config.get("task")

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        body: dict[str, Any] = {"model": self.model, "input": texts}
        if self.task:
            body["task"] = self.task
        if self.dimensions:
            body["dimensions"] = int(self.dimensions)
        reply = self._post(f"{self.base_url}/v1/embeddings", body, {"Authorization": f"Bearer {self._key}"},
                           key_hint="JINA_API_KEY")
        return indexed_rows(reply.get("data") if isinstance(reply, dict) else None, self.provider)
