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
- ``"custom"``: ``config["embedding_callable"]`` (a callable or a zero-arg factory of one).

Other names raise a ``ValueError`` that lists these.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["SUPPORTED_PROVIDERS", "Embedder", "build_embedder"]

Embedder = Callable[[list[str]], list[list[float]]]

SUPPORTED_PROVIDERS = ("azure", "custom", "huggingface", "local", "ollama", "onnx", "openai", "sentence-transformer")

_MINILM_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}


def _model(config: dict[str, Any], default: str) -> str:
    return str(config.get("model_name") or config.get("model") or default)


def _ollama_base(url: str | None) -> str:
    base = (url or "http://localhost:11434").rstrip("/")
    for suffix in ("/api/embeddings", "/api/embed", "/v1/embeddings", "/v1"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
            break
    return base + "/v1"


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
    config: dict[str, Any] = dict(spec.get("config") or {})
    if provider in {"onnx", "local", "default"}:
        return default_embedder() if not config.get("batch_size") else MiniLMEmbedder(int(config["batch_size"]))
    if provider in {"huggingface", "sentence-transformer", "sentence-transformers"}:
        name = _model(config, "all-MiniLM-L6-v2").lower()
        if name in _MINILM_NAMES:
            return default_embedder()
        raise ValueError(
            f"embedder provider {provider!r} runs locally only with all-MiniLM-L6-v2 (bundled as ONNX); "
            f"{name!r} is not bundled. Use an OpenAI-compatible server for other models "
            "(e.g. {'provider': 'openai', 'config': {'model_name': ..., 'api_base': 'http://localhost:8000/v1'}})."
        )
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
            _model(config, "nomic-embed-text"),
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
