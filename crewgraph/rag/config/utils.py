"""The process-wide RAG configuration: ``set_rag_config``, ``get_rag_config``, ``get_rag_client``, ``clear_rag_config``.

Nothing set means ``QdrantConfig()`` (embedded Qdrant, offline MiniLM). The
client is built on first ``get_rag_client()`` and kept until the config
changes. The RAG search tools (``TXTSearchTool``...) embed with the set
config's ``embedding_function`` when their own ``config`` names no embedder.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["clear_rag_config", "configured_embedder", "get_rag_client", "get_rag_config", "has_rag_config",
           "set_rag_config"]

_lock = threading.RLock()
_config: Any = None
_client: Any = None


def set_rag_config(config: Any) -> None:
    """Use ``config`` (a ``QdrantConfig`` or ``ChromaDBConfig``) from now on, in this process."""
    from crewgraph.rag.config.base import BaseRagConfig

    if not isinstance(config, BaseRagConfig) or config.provider not in {"qdrant", "chromadb"}:
        raise TypeError(f"set_rag_config takes a QdrantConfig or a ChromaDBConfig, not {type(config).__name__}")
    global _config, _client
    with _lock:
        _config, _client = config, None


def has_rag_config() -> bool:
    """True when a config was set (not the default)."""
    return _config is not None


def get_rag_config() -> Any:
    """The config set, else a new default ``QdrantConfig``."""
    global _config
    with _lock:
        if _config is None:
            from crewgraph.rag.qdrant.config import QdrantConfig

            _config = QdrantConfig()
        return _config


def get_rag_client() -> Any:
    """The client of the current config (built once)."""
    global _client
    with _lock:
        if _client is None:
            from crewgraph.rag.factory import create_client

            _client = create_client(get_rag_config())
        return _client


def clear_rag_config() -> None:
    """Back to the default (the next ``get_rag_client()`` builds a new client)."""
    global _config, _client
    with _lock:
        _config, _client = None, None


_adapters: dict[int, Any] = {}


def configured_embedder() -> Any | None:
    """The set config's embedding function as ``list[str] -> list[vector]`` (None when none was set).

    A ``QdrantConfig`` embeds one text per call (``str -> vector``); a ``ChromaDBConfig`` a list. The
    adapter is cached per config, so the RAG index (keyed by embedder) is reused across tools.
    """
    config = _config
    if config is None:
        return None
    with _lock:
        adapter = _adapters.get(id(config))
        if adapter is None:
            fn = config.embedding_function
            if config.provider == "qdrant":
                def adapter(texts: list[str], _fn: Any = fn) -> list[list[float]]:
                    return [[float(x) for x in _fn(t)] for t in texts]
            else:
                def adapter(texts: list[str], _fn: Any = fn) -> list[list[float]]:
                    return [[float(x) for x in v] for v in _fn(list(texts))]
            _adapters.clear()
            _adapters[id(config)] = adapter
        return adapter
