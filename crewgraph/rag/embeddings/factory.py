"""``build_embedder(config)``: an embedder callable from a ``{"provider": ..., "config": ...}`` dict.

Every embedder is a callable ``list[str] -> list[list[float]]`` (one call per
batch of texts). Supported providers:

- ``"onnx"`` / ``"local"`` / ``"default"``: all-MiniLM-L6-v2 int8 on onnxruntime
  (384 dims, offline; also chosen for ``"huggingface"`` / ``"sentence-transformer"``
  when the model is all-MiniLM-L6-v2);
- ``"openai"``: the OpenAI API or any OpenAI-compatible server (``api_base``/``base_url``);
- ``"azure"``: Azure OpenAI (``deployment_id``, ``api_key``, ``api_base``, ``api_version``);
- ``"ollama"``: Ollama's OpenAI-compatible endpoint (``url`` may be its
  ``/api/embeddings`` address; it is mapped to ``/v1``);
- ``"google-generativeai"`` / ``"google-vertex"``: Gemini API / Vertex AI (``google.py``);
- ``"cohere"``, ``"voyageai"``, ``"jina"``: their REST APIs (``api_providers.py``);
- ``"amazon-bedrock"``: InvokeModel through boto3 (``bedrock.py``, extra ``bedrock``);
- ``"huggingface"`` / ``"sentence-transformer"``: other models over the Inference
  API or a TEI server, or sentence-transformers when installed (``huggingface.py``);
- ``"watsonx"``: IBM watsonx.ai with an IAM token (``watsonx.py``);
- ``"custom"``: ``config["embedding_callable"]`` (a callable or a zero-arg factory of one).

Every config may give ``base_url`` (or the provider's own ``url``/``api_base``), so
tests point a provider at a local fake. A missing key is a ``ValueError`` here,
naming the variable; other names raise a ``ValueError`` that lists the providers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["SUPPORTED_PROVIDERS", "Embedder", "build_embedder"]

Embedder = Callable[[list[str]], list[list[float]]]

SUPPORTED_PROVIDERS = (
    "amazon-bedrock",
    "azure",
    "cohere",
    "custom",
    "google-generativeai",
    "google-vertex",
    "huggingface",
    "jina",
    "local",
    "ollama",
    "onnx",
    "openai",
    "sentence-transformer",
    "voyageai",
    "watsonx",
)

_ALIASES = {
    "sentence-transformers": "sentence-transformer",
    "google": "google-generativeai",
    "gemini": "google-generativeai",
    "google-genai": "google-generativeai",
    "vertexai": "google-vertex",
    "vertex": "google-vertex",
    "bedrock": "amazon-bedrock",
    "voyage": "voyageai",
    "azure-openai": "azure",
}


def _model(config: dict[str, Any], default: str) -> str:
    return str(config.get("model_name") or config.get("model") or default)


def _ollama_base(url: str | None) -> str:
    base = (url or "http://localhost:11434").rstrip("/")
    for suffix in ("/api/embeddings", "/api/embed", "/v1/embeddings", "/v1"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
            break
    return base + "/v1"


def _remote(provider: str, config: dict[str, Any]) -> Embedder | None:
    """The HTTP-API providers, each in its own module (imported only when chosen)."""
    if provider in {"cohere", "voyageai", "jina"}:
        from crewgraph.rag.embeddings import api_providers

        cls = {"cohere": api_providers.CohereEmbedder, "voyageai": api_providers.VoyageAIEmbedder,
               "jina": api_providers.JinaEmbedder}[provider]
        return cls(config)
    if provider == "google-generativeai":
        from crewgraph.rag.embeddings.google import GoogleGenAIEmbedder

        return GoogleGenAIEmbedder(config)
    if provider == "google-vertex":
        from crewgraph.rag.embeddings.google import VertexEmbedder

        return VertexEmbedder(config)
    if provider == "watsonx":
        from crewgraph.rag.embeddings.watsonx import WatsonxEmbedder

        return WatsonxEmbedder(config)
    if provider == "amazon-bedrock":
        from crewgraph.rag.embeddings.bedrock import BedrockEmbedder

        return BedrockEmbedder(config)
    return None


def build_embedder(spec: dict[str, Any] | Embedder | None) -> Embedder:
    """The embedder for ``spec`` (``None`` or ``{}``: the offline ONNX default; a callable
    ``list[str] -> list[list[float]]`` is used as it is, as ``Memory(embedder=...)`` accepts)."""
    from crewgraph.rag.embeddings.onnx_minilm import MiniLMEmbedder, default_embedder
    from crewgraph.rag.embeddings.openai_compat import OpenAICompatibleEmbedder

    if not spec:
        return default_embedder()
    if callable(spec):
        return spec
    if not isinstance(spec, dict):
        raise TypeError(f"an embedder config must be a dict like {{'provider': ..., 'config': ...}}, got {type(spec).__name__}")
    provider = str(spec.get("provider") or "").strip().lower().replace("_", "-")
    provider = _ALIASES.get(provider, provider)
    config: dict[str, Any] = dict(spec.get("config") or {})
    if provider in {"onnx", "local", "default"}:
        return default_embedder() if not config.get("batch_size") else MiniLMEmbedder(int(config["batch_size"]))
    if provider in {"huggingface", "sentence-transformer"}:
        from crewgraph.rag.embeddings.huggingface import build_huggingface

        return build_huggingface(provider, config)
    remote = _remote(provider, config)
    if remote is not None:
        return remote
    if provider == "openai":
        return OpenAICompatibleEmbedder(
            _model(config, "text-embedding-3-small"),
            api_key=config.get("api_key"),
            base_url=config.get("api_base") or config.get("base_url") or config.get("url"),
            dimensions=config.get("dimensions"),
        )
    if provider == "azure":
        endpoint = config.get("api_base") or config.get("azure_endpoint")
        if not endpoint:
            raise ValueError("the azure embedder needs config['api_base'] (your resource endpoint)")
        return OpenAICompatibleEmbedder(
            str(config.get("deployment_id") or _model(config, "text-embedding-3-large")),
            api_key=config.get("api_key"),
            dimensions=config.get("dimensions"),
            azure={"endpoint": endpoint, "api_version": config.get("api_version")},
        )
    if provider == "ollama":
        return OpenAICompatibleEmbedder(
            _model(config, "mxbai-embed-large"),
            api_key=config.get("api_key") or "ollama",
            base_url=_ollama_base(config.get("url") or config.get("base_url") or config.get("api_base")),
        )
    if provider == "custom":
        fn = config.get("embedding_callable")
        if fn is None:
            raise ValueError("the custom embedder needs config['embedding_callable']")
        if isinstance(fn, type):
            fn = fn()
        if not callable(fn):
            raise TypeError("config['embedding_callable'] must be callable: list[str] -> list[list[float]]")
        return fn
    raise ValueError(
        f"unknown embedder provider {spec.get('provider')!r}; supported providers: "
        + ", ".join(SUPPORTED_PROVIDERS)
        + ". Any callable list[str] -> list[list[float]] also works as Memory(embedder=...)."
    )
