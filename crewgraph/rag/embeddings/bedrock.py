"""Amazon Bedrock embeddings through boto3 (``amazon-bedrock``; ``pip install 'crewgraph[bedrock]'``).

Bedrock requests are signed with AWS Signature V4, so this provider uses the
SDK: ``bedrock-runtime``'s ``InvokeModel`` with the model's documented body.
Titan models (``amazon.titan-embed-text-v1``/``v2``) take one text per call
(``{"inputText"}`` -> ``{"embedding"}``); Cohere models on Bedrock take a
batch (``{"texts", "input_type"}`` -> ``{"embeddings"}``). Credentials are
boto3's usual chain, or ``config["session"]`` (a ``boto3.Session``), region
from ``config["region_name"]``; ``config["endpoint_url"]`` moves the endpoint.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from crewgraph.rag.embeddings._http import EmbedderError

__all__ = ["BedrockEmbedder"]


class BedrockEmbedder:
    provider = "amazon-bedrock"

    def __init__(self, config: dict[str, Any]) -> None:
        try:
            import boto3  # noqa: F401
        except ImportError:
            raise ValueError(
                "the amazon-bedrock embedder needs boto3 (Bedrock requests are SigV4-signed): "
                "pip install 'crewgraph[bedrock]'"
            ) from None
        self.model = str(config.get("model_name") or config.get("model") or "amazon.titan-embed-text-v1")
        self.dimensions = config.get("dimensions")
        self.input_type = str(config.get("input_type") or "search_document")
        self._session = config.get("session")
        self._region = config.get("region_name") or config.get("region")
        self._endpoint = config.get("endpoint_url")
        self._client: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"BedrockEmbedder(model={self.model!r})"

    def _runtime(self) -> Any:
        with self._lock:
            if self._client is None:
                import boto3
                from botocore.config import Config

                session = self._session or boto3.Session()
                self._client = session.client(
                    "bedrock-runtime",
                    region_name=self._region,
                    endpoint_url=self._endpoint,
                    config=Config(connect_timeout=10, read_timeout=60, retries={"max_attempts": 2}),
                )
            return self._client

    def _invoke(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            response = self._runtime().invoke_model(
                modelId=self.model, body=json.dumps(body), contentType="application/json", accept="application/json"
            )
            payload: dict[str, Any] = json.loads(response["body"].read())
        except EmbedderError:
            raise
        except Exception as exc:
            raise EmbedderError(f"the amazon-bedrock embedder could not call {self.model}: {type(exc).__name__}: {exc}") from exc
        return payload

    def __call__(self, texts: list[str]) -> list[list[float]]:
        if self.model.startswith("cohere."):
            out: list[list[float]] = []
            for start in range(0, len(texts), 96):
                batch = [t or " " for t in texts[start : start + 96]]
                reply = self._invoke({"texts": batch, "input_type": self.input_type})
                vectors = reply.get("embeddings")
                if isinstance(vectors, dict):
                    vectors = vectors.get("float")
                if not isinstance(vectors, list) or len(vectors) != len(batch):
                    raise EmbedderError(f"the amazon-bedrock embedder got no vectors for {len(batch)} texts from {self.model}")
                out.extend([float(x) for x in v] for v in vectors)
            return out
        vectors_out = []
        for text in texts:
            body: dict[str, Any] = {"inputText": text or " "}
            if self.dimensions and "v2" in self.model:
                body["dimensions"] = int(self.dimensions)
            reply = self._invoke(body)
            if not isinstance(reply.get("embedding"), list):
                raise EmbedderError(f"the amazon-bedrock embedder got no 'embedding' from {self.model}")
            vectors_out.append([float(x) for x in reply["embedding"]])
        return vectors_out
