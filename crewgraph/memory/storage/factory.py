"""Turn ``Memory(storage=...)`` into a backend, without opening anything yet.

- a backend object: used as is;
- ``None``, ``""``, ``"qdrant-edge"``, ``"default"`` or ``"lancedb"`` (CrewAI's name for
  its default, accepted so ported code runs): a Qdrant server when
  ``CREWGRAPH_QDRANT_URL`` is set, else the embedded store at
  ``$CREWGRAPH_STORAGE_DIR/memory`` or ``./.crewgraph/memory``;
- ``"http(s)://..."``: that Qdrant server (key from ``CREWGRAPH_QDRANT_API_KEY``);
- ``":memory:"``: qdrant-client's in-process engine (nothing persists);
- any other string or path: the embedded store in that directory.

A backend written for CrewAI's smaller protocol is wrapped by
:func:`~crewgraph.memory.storage.compat.adapt_backend`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from crewgraph._internal.extras import import_extra
from crewgraph.memory.storage.backend import StorageBackend

__all__ = ["DEFAULT_STORAGE_NAMES", "default_storage_path", "resolve_storage"]

DEFAULT_STORAGE_NAMES = frozenset({"qdrant-edge", "qdrant_edge", "default", "lancedb"})


def default_storage_path() -> Path:
    """``$CREWGRAPH_STORAGE_DIR/memory`` when set, else ``./.crewgraph/memory``."""
    from crewgraph._internal.storage import MEMORY_DIRECTORY, storage_root

    return storage_root() / MEMORY_DIRECTORY


def _server(url: str) -> StorageBackend:
    from crewgraph.memory.storage.qdrant_server import QdrantServerStorage

    return QdrantServerStorage(url, api_key=os.environ.get("CREWGRAPH_QDRANT_API_KEY") or None)


def _edge(path: str | os.PathLike[str]) -> StorageBackend:
    from crewgraph.memory.storage.qdrant_edge import QdrantEdgeStorage

    return QdrantEdgeStorage(path)


def resolve_storage(storage: Any) -> StorageBackend:
    """The backend for a ``storage=`` argument (see the module docstring)."""
    # A blank string is the default too: as a path it would put the store's files straight
    # into the working directory.
    if storage is None or (isinstance(storage, str) and storage.strip().lower() in DEFAULT_STORAGE_NAMES | {""}):
        url = os.environ.get("CREWGRAPH_QDRANT_URL")
        return _server(url) if url else _edge(default_storage_path())
    if isinstance(storage, os.PathLike):
        return _edge(storage)
    if isinstance(storage, str):
        text = storage.strip()
        if text.startswith(("http://", "https://")):
            return _server(text)
        if text == ":memory:":
            qdrant_client = import_extra("qdrant_client", "qdrant", "Memory(storage=':memory:')")
            from crewgraph.memory.storage.qdrant_server import QdrantServerStorage

            return QdrantServerStorage(client=qdrant_client.QdrantClient(":memory:"))
        return _edge(text)
    if isinstance(storage, StorageBackend) or callable(getattr(storage, "search", None)):
        from crewgraph.memory.storage.compat import adapt_backend

        return adapt_backend(storage)
    raise TypeError(
        "storage must be a path, a Qdrant URL, ':memory:', 'qdrant-edge' or a StorageBackend, "
        f"got {type(storage).__name__}"
    )
