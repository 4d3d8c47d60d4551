"""IBM watsonx.ai embeddings over its REST API (``watsonx``).

The API key (``config["api_key"]``, ``WATSONX_APIKEY`` or ``WATSONX_API_KEY``)
is exchanged at IBM Cloud IAM (``POST {iam_url}/identity/token``,
``grant_type=urn:ibm:params:oauth:grant-type:apikey``) for a bearer token,
kept until a minute before it expires. Embeddings: ``POST
{url}/ml/v1/text/embeddings?version=...`` with ``{"inputs", "model_id",
"project_id"}`` (or ``space_id``), vectors in ``results[].embedding``.
"""

from __future__ import annotations

import os
import time
from typing import Any

from crewgraph.rag.embeddings._http import EmbedderError, HTTPEmbedder, config_key

__all__ = ["WatsonxEmbedder"]

_API_VERSION = "2024-05-01"


class WatsonxEmbedder(HTTPEmbedder):
    provider = "watsonx"
    batch_size = 1000  # watsonx.ai's limit of inputs per call

    def __init__(self, config: dict[str, Any]) -> None:
        url = config.get("url") or config.get("api_base") or os.environ.get("WATSONX_URL") or "https://us-south.ml.cloud.ibm.com"
        super().__init__(
            str(config.get("model_id") or config.get("model_name") or config.get("model") or "ibm/slate-30m-english-rtrvr"),
            base_url=str(url),
            timeout=float(config.get("timeout", 60.0)),
        )
        self._key = config_key(config, "watsonx", "WATSONX_APIKEY", "WATSONX_API_KEY")
        self.project_id = config.get("project_id") or os.environ.get("WATSONX_PROJECT_ID")
        self.space_id = config.get("space_id") or os.environ.get("WATSONX_SPACE_ID")
        if not self.project_id and not self.space_id:
            raise ValueError("the watsonx embedder needs config['project_id'] (or WATSONX_PROJECT_ID) or config['space_id']")
        self.iam_url = str(config.get("iam_url") or "https://iam.cloud.ibm.com").rstrip("/")
        self.truncate_input_tokens = config.get("truncate_input_tokens")
        self._token: str | None = None
        self._expires = 0.0

    def _bearer(self) -> str:
        if self._token is None or time.time() > self._expires - 60:
            reply = self._post(
                f"{self.iam_url}/identity/token",
                None,
                {"Accept": "application/json"},
                key_hint="WATSONX_APIKEY",
                data={"grant_type": "urn:ibm:params:oauth:grant-type:apikey", "apikey": self._key},
            )
            if not isinstance(reply, dict) or not reply.get("access_token"):
                raise EmbedderError("IBM Cloud IAM gave the watsonx embedder no access_token")
            self._token = str(reply["access_token"])
            self._expires = float(reply.get("expiration") or time.time() + float(reply.get("expires_in", 3600)))
        return self._token

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        body: dict[str, Any] = {"inputs": texts, "model_id": self.model}
        body.update({"project_id": self.project_id} if self.project_id else {"space_id": self.space_id})
        if self.truncate_input_tokens:
            body["parameters"] = {"truncate_input_tokens": int(self.truncate_input_tokens)}
        reply = self._post(
            f"{self.base_url}/ml/v1/text/embeddings",
            body,
            {"Authorization": f"Bearer {self._bearer()}"},
            params={"version": _API_VERSION},
        )
        rows = reply.get("results") if isinstance(reply, dict) else None
        if not isinstance(rows, list):
            raise EmbedderError("the watsonx embedder's reply has no 'results' list")
        return [list(r["embedding"]) for r in rows]
