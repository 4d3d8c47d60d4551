"""``QdrantConfig``: Qdrant as the RAG store, embedded (the default) or a server (CrewAI's path and fields).

``options`` are qdrant-client's connection arguments: ``{"path": dir}``
(embedded, on disk; the default is ``$CREWGRAPH_STORAGE_DIR/rag/qdrant``, else
``./.crewgraph/rag/qdrant``), ``{"location": ":memory:"}``, or
``{"url": "http://host:6333", "api_key": ...}`` for a server.
``embedding_function`` embeds one text (``str -> list[float]``, as CrewAI's
Qdrant wrapper does); the default is crewgraph's offline all-MiniLM-L6-v2
(CrewAI's default model, run with onnxruntime instead of fastembed).
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

from crewgraph.rag.config.base import BaseRagConfig

__all__ = ["QdrantConfig", "default_qdrant_path"]


def default_qdrant_path() -> str:
    """Where the embedded store lives by default."""
    from crewgraph.memory.storage.factory import default_storage_path

    return str(default_storage_path().parent / "rag" / "qdrant")


def _default_options() -> dict[str, Any]:
    return {"path": default_qdrant_path()}


def _default_embedding_function() -> Any:
    from crewgraph.rag.embeddings.onnx_minilm import default_embedder

    embedder = default_embedder()

    def embed(text: str) -> list[float]:
        return [float(x) for x in embedder([text])[0]]

    return embed


@dataclass(frozen=True, config=ConfigDict(arbitrary_types_allowed=True, extra="forbid"))
class QdrantConfig(BaseRagConfig):
    """The default RAG configuration."""

    provider: Literal["qdrant"] = field(default="qdrant", init=False)
    options: dict[str, Any] = field(default_factory=_default_options)
    embedding_function: Any = field(default_factory=_default_embedding_function)
    vectors_config: Any | None = field(default=None)

    def __post_init__(self) -> None:
        known = {"path", "location", "url", "host", "port", "grpc_port", "prefer_grpc", "https", "api_key",
                 "prefix", "timeout", "force_disable_check_same_thread"}
        unknown = sorted(set(self.options) - known)
        if unknown:
            raise ValueError(f"QdrantConfig options {unknown} are not qdrant-client connection arguments "
                             f"(known: {sorted(known)})")
        if not callable(self.embedding_function):
            raise TypeError("QdrantConfig.embedding_function must be callable: str -> list[float]")
