"""Google embedders: the Gemini API (``google-generativeai``) and Vertex AI (``google-vertex``).

Gemini: ``POST {base}/v1beta/models/{model}:batchEmbedContents`` with the
``x-goog-api-key`` header (``GOOGLE_API_KEY`` or ``GEMINI_API_KEY``), one
request per 100 texts, vectors in ``embeddings[].values``.

Vertex: ``POST https://{location}-aiplatform.googleapis.com/v1/projects/{project}/locations/{location}/publishers/google/models/{model}:predict``
with ``{"instances": [{"content", "task_type"}]}``, vectors in
``predictions[].embeddings.values``. Vertex authenticates with an OAuth
token: from ``config["credentials"]`` (a google-auth credentials object) or
Application Default Credentials, which need the ``google-auth`` library
(``pip install 'crewgraph[google]'``); an express-mode API key
(``config["api_key"]`` or ``GOOGLE_CLOUD_API_KEY``) needs no library.
"""

from __future__ import annotations

import os
from typing import Any

from crewgraph.rag.embeddings._http import EmbedderError, HTTPEmbedder, config_key

__all__ = ["GoogleGenAIEmbedder", "VertexEmbedder"]


class GoogleGenAIEmbedder(HTTPEmbedder):
    provider = "google-generativeai"
    batch_size = 100

    def __init__(self, config: dict[str, Any]) -> None:
        model = str(config.get("model_name") or config.get("model") or "gemini-embedding-001")
        super().__init__(
            model.removeprefix("models/"),
            base_url=str(config.get("base_url") or config.get("api_base") or "https://generativelanguage.googleapis.com"),
            timeout=float(config.get("timeout", 60.0)),
            dimensions=config.get("output_dimensionality") or config.get("dimensions"),
        )
        self._key = config_key(config, "google-generativeai", "GOOGLE_API_KEY", "GEMINI_API_KEY")
        self.task_type = config.get("task_type", "RETRIEVAL_DOCUMENT")

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        requests = []
        for text in texts:
            item: dict[str, Any] = {"model": f"models/{self.model}", "content": {"parts": [{"text": text}]}}
            if self.task_type:
                item["taskType"] = self.task_type
            if self.dimensions:
                item["outputDimensionality"] = int(self.dimensions)
            requests.append(item)
        reply = self._post(
            f"{self.base_url}/v1beta/models/{self.model}:batchEmbedContents",
            {"requests": requests},
            {"x-goog-api-key": self._key},
            key_hint="GOOGLE_API_KEY",
        )
        rows = reply.get("embeddings") if isinstance(reply, dict) else None
        if not isinstance(rows, list):
            raise EmbedderError("the google-generativeai embedder's reply has no 'embeddings' list")
        return [list(r["values"]) for r in rows]


class VertexEmbedder(HTTPEmbedder):
    provider = "google-vertex"

    def __init__(self, config: dict[str, Any]) -> None:
        self.location = str(config.get("location") or config.get("region") or "us-central1")
        model = str(config.get("model_name") or config.get("model") or "gemini-embedding-001")
        default_base = f"https://{self.location}-aiplatform.googleapis.com"
        super().__init__(
            model,
            base_url=str(config.get("base_url") or config.get("api_base") or default_base),
            timeout=float(config.get("timeout", 60.0)),
            dimensions=config.get("output_dimensionality") or config.get("dimensions"),
        )
        self.api_key = config.get("api_key") or os.environ.get("GOOGLE_CLOUD_API_KEY")
        self.project_id = config.get("project_id") or os.environ.get("GOOGLE_CLOUD_PROJECT")
        if not self.api_key and not self.project_id:
            raise ValueError(
                "the google-vertex embedder needs config['project_id'] (or GOOGLE_CLOUD_PROJECT), "
                "or an express-mode API key in config['api_key'] / GOOGLE_CLOUD_API_KEY"
            )
        self.task_type = config.get("task_type", "RETRIEVAL_DOCUMENT")
        self._credentials: Any = config.get("credentials")
        if not self.api_key and self._credentials is None:
            self._credentials = _default_credentials()
        # gemini-embedding-001 takes one instance per request on Vertex; the text-embedding models 250
        self.batch_size = 1 if model.startswith("gemini") else 250

    def _url_and_headers(self) -> tuple[str, dict[str, str]]:
        if self.api_key:
            return f"{self.base_url}/v1/publishers/google/models/{self.model}:predict", {"x-goog-api-key": str(self.api_key)}
        creds = self._credentials
        if not getattr(creds, "valid", False):
            from google.auth.transport.requests import Request

            creds.refresh(Request())
        path = f"/v1/projects/{self.project_id}/locations/{self.location}/publishers/google/models/{self.model}:predict"
        return self.base_url + path, {"Authorization": f"Bearer {creds.token}"}

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        instances = [{"content": t, **({"task_type": self.task_type} if self.task_type else {})} for t in texts]
        body: dict[str, Any] = {"instances": instances}
        if self.dimensions:
            body["parameters"] = {"outputDimensionality": int(self.dimensions)}
        url, headers = self._url_and_headers()
        reply = self._post(url, body, headers, key_hint="your Google Cloud credentials")
        rows = reply.get("predictions") if isinstance(reply, dict) else None
        if not isinstance(rows, list):
            raise EmbedderError("the google-vertex embedder's reply has no 'predictions' list")
        return [list(r["embeddings"]["values"]) for r in rows]


def _default_credentials() -> Any:
    try:
        import google.auth
    except ImportError:
        raise ValueError(
            "the google-vertex embedder authenticates with Application Default Credentials, which need "
            "the google-auth library: pip install 'crewgraph[google]' (or pass config['credentials'], or an "
            "express-mode config['api_key'])"
        ) from None
    try:
        credentials, _project = google.auth.default(scopes=["https://www.googleapis.com/auth/cloud-platform"])
    except Exception as exc:
        raise ValueError(f"the google-vertex embedder found no Google Cloud credentials: {exc}") from exc
    return credentials
