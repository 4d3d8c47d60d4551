"""What the MongoDB-protocol vector tools share: the client and inserting embedded texts.

``MongoDBVectorSearchTool`` and ``AzureDocumentDBVectorSearchTool`` speak the same wire
protocol and store documents the same way; only their search stages differ.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

__all__ = ["insert_embedded", "mongo_client"]


def mongo_client(uri: str, timeout_ms: int) -> Any:
    """A pymongo client with every wait bounded by ``timeout_ms``, named crewgraph to the server."""
    from pymongo import MongoClient
    from pymongo.driver_info import DriverInfo

    return MongoClient(uri, serverSelectionTimeoutMS=timeout_ms, connectTimeoutMS=timeout_ms,
                       socketTimeoutMS=timeout_ms, driver=DriverInfo(name="crewgraph"))


def insert_embedded(
    collection: Any, embed: Callable[[list[str]], list[list[float]]], texts: list[str],
    metadatas: list[dict[str, Any]] | None, ids: list[str] | None, batch_size: int,
    text_key: str, embedding_key: str,
) -> list[str]:
    """Embed ``texts`` batch by batch and insert them with their metadata; the documents' ids."""
    texts = list(texts)
    if metadatas is not None and len(metadatas) != len(texts):
        raise ValueError(f"add_texts got {len(metadatas)} metadatas for {len(texts)} texts")
    ids = list(ids) if ids is not None else [uuid.uuid4().hex for _ in texts]
    for start in range(0, len(texts), batch_size):
        batch = texts[start : start + batch_size]
        vectors = embed(batch)
        collection.insert_many([
            {"_id": ids[start + i], text_key: text, embedding_key: [float(x) for x in vec],
             **((metadatas or [{}] * len(texts))[start + i])}
            for i, (text, vec) in enumerate(zip(batch, vectors, strict=True))])
    return ids
