"""Hugging Face embedders: the bundled MiniLM, the Inference API / a TEI server, or sentence-transformers.

``huggingface`` and ``sentence-transformer`` with all-MiniLM-L6-v2 (the
default) run the bundled int8 ONNX export: offline, no torch. Another model

- with ``config["api_url"]`` (a Text Embeddings Inference server or an
  Inference Endpoint) or a token (``config["api_key"]``, ``HF_TOKEN``,
  ``HUGGINGFACE_API_KEY``) for ``huggingface``, is embedded over HTTP:
  ``POST {url}`` ``{"inputs": [...]}`` -> ``[[...], ...]`` (the feature-extraction
  pipeline's documented reply);
- otherwise runs locally in the ``sentence-transformers`` library when it is
  installed (``pip install sentence-transformers``: it brings torch, so it is
  not a crewgraph extra), and is refused with that advice when it is not.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

from crewgraph.rag.embeddings._http import EmbedderError, HTTPEmbedder

__all__ = ["HuggingFaceAPIEmbedder", "SentenceTransformerEmbedder", "build_huggingface"]

MINILM_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
_ROUTER = "https://router.huggingface.co/hf-inference/models/{model}/pipeline/feature-extraction"


class HuggingFaceAPIEmbedder(HTTPEmbedder):
    provider = "huggingface"
    batch_size = 32

    def __init__(self, model: str, config: dict[str, Any], token: str | None) -> None:
        url = config.get("api_url") or config.get("url") or config.get("base_url") or _ROUTER.format(model=model)
        super().__init__(model, base_url=str(url), timeout=float(config.get("timeout", 60.0)))
        self._token = token

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        headers = {"Authorization": f"Bearer {self._token}"} if self._token else {}
        body = {"inputs": texts, "options": {"wait_for_model": True}}
        if self.base_url.endswith("/embed"):  # a TEI server's /embed takes no options
            body = {"inputs": texts}
        reply = self._post(self.base_url, body, headers, key_hint="HF_TOKEN")
        if not isinstance(reply, list) or not all(isinstance(v, list) for v in reply):
            raise EmbedderError("the huggingface embedder's reply is not a list of vectors")
        if reply and reply[0] and isinstance(reply[0][0], list):
            raise EmbedderError(
                f"the huggingface model {self.model!r} returned token embeddings, not one vector per text: "
                "use a sentence-transformers model (its pipeline pools the tokens)"
            )
        return reply


class SentenceTransformerEmbedder:
    """A model run locally by the sentence-transformers library (loaded on first call)."""

    def __init__(self, model: str, device: str | None = None, normalize: bool = False) -> None:
        self.model = model
        self.device = device
        self.normalize = normalize
        self._st: Any = None

    def __call__(self, texts: list[str]) -> list[list[float]]:
        if self._st is None:
            from sentence_transformers import SentenceTransformer

            self._st = SentenceTransformer(self.model, device=self.device)
        vectors = self._st.encode(list(texts), normalize_embeddings=self.normalize)
        return [[float(x) for x in v] for v in vectors]


def build_huggingface(provider: str, config: dict[str, Any]) -> Any:
    """The embedder for ``huggingface`` / ``sentence-transformer`` (see the module doc)."""
    from crewgraph.rag.embeddings.onnx_minilm import default_embedder

    model = str(config.get("model_name") or config.get("model") or "all-MiniLM-L6-v2")
    if model.lower() in MINILM_NAMES:
        return default_embedder()
    token = config.get("api_key") or os.environ.get("HF_TOKEN") or os.environ.get("HUGGINGFACE_API_KEY")
    remote = config.get("api_url") or config.get("url") or config.get("base_url")
    if provider == "huggingface" and (remote or token):
        return HuggingFaceAPIEmbedder(model, config, str(token) if token else None)
    if importlib.util.find_spec("sentence_transformers") is not None:
        return SentenceTransformerEmbedder(model, config.get("device"), bool(config.get("normalize_embeddings")))
    raise ValueError(
        f"embedder provider {provider!r}: {model!r} is not bundled (only all-MiniLM-L6-v2 is, as ONNX) "
        "and the sentence-transformers library is not installed: pip install sentence-transformers, "
        + ("or give config['api_url'] / HF_TOKEN to use the Hugging Face Inference API"
           if provider == "huggingface" else "or use the 'huggingface' provider with config['api_url'] "
           "(a Text Embeddings Inference server) or HF_TOKEN")
    )
