"""Memory storage on a Qdrant server (or any ``qdrant_client.QdrantClient``).

This is how several processes or machines share one memory: run the
``qdrant/qdrant`` container and give ``Memory(storage="http://localhost:6333")``
or set ``CREWGRAPH_QDRANT_URL`` (``CREWGRAPH_QDRANT_API_KEY`` for a key).
Passing ``client=QdrantClient(":memory:")`` runs the same code path against
qdrant-client's local engine, which is how CI exercises it without a server.
"""

from __future__ import annotations

import threading
import warnings
from typing import Any

from crewgraph._internal.extras import import_extra
from crewgraph.memory.storage._qdrant_base import (
    FACET_LIMIT,
    INDEXES,
    VECTOR_NAME,
    Cond,
    QdrantStorageBase,
)
from crewgraph.memory.storage.backend import MemoryStorageError

__all__ = ["QdrantServerStorage"]


def _to_filter(conds: list[Cond]) -> Any:
    from qdrant_client import models

    if not conds:
        return None
    must: list[Any] = []
    for c in conds:
        if c.op == "eq":
            must.append(models.FieldCondition(key=c.key, match=models.MatchValue(value=c.value)))
        elif c.op == "any":
            must.append(models.FieldCondition(key=c.key, match=models.MatchAny(any=list(c.value))))
        else:
            must.append(models.FieldCondition(key=c.key, range=models.Range(gte=c.gte, lt=c.lt)))
    return models.Filter(must=must)


class QdrantServerStorage(QdrantStorageBase):
    """A collection (default ``crewgraph_memory``) on a Qdrant server or client.

    Give ``url`` (+ ``api_key``) or a ready ``client``. The client is created
    on first use; the collection when the first record is saved (its vector
    size is the embedder's).
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        api_key: str | None = None,
        collection: str = "crewgraph_memory",
        client: Any = None,
        timeout: float = 10.0,
    ) -> None:
        if url is None and client is None:
            raise ValueError("QdrantServerStorage needs a url or a client")
        self.url = url
        self.api_key = api_key
        self.collection = collection
        self.timeout = timeout
        self._client = client
        self._size: int | None = None
        self._size_known = False
        self._lock = threading.RLock()
        self._where = f"{url or 'the given Qdrant client'} (collection {collection!r})"
        self._remove = f"delete the collection {collection!r} on that server"

    def __repr__(self) -> str:
        return f"QdrantServerStorage(url={self.url!r}, collection={self.collection!r})"

    @property
    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                qdrant_client = import_extra("qdrant_client", "qdrant", "Memory on a Qdrant server")
                self._client = qdrant_client.QdrantClient(
                    url=self.url, api_key=self.api_key, timeout=int(self.timeout)
                )
            return self._client

    def close(self) -> None:
        with self._lock:
            if self._client is not None and self.url is not None:
                self._client.close()
                self._client = None
            self._size_known = False

    # -- primitives ---------------------------------------------------------------
    def _vector_size(self) -> int | None:
        # Every operation asks this first, so an unreachable server is reported here, once,
        # naming the URL -- not as a bare connection error from deep inside qdrant-client.
        with self._lock:
            if not self._size_known:
                self._size = None
                try:
                    if self.client.collection_exists(self.collection):
                        params = self.client.get_collection(self.collection).config.params.vectors
                        vec = params.get(VECTOR_NAME) if isinstance(params, dict) else params
                        self._size = int(vec.size) if vec is not None else None
                except Exception as exc:
                    raise MemoryStorageError(
                        f"cannot use the Qdrant server at {self._where}: {type(exc).__name__}: {exc}. "
                        "Is it running (docker run -p 6333:6333 qdrant/qdrant) and is the URL/API key right "
                        "(CREWGRAPH_QDRANT_URL, CREWGRAPH_QDRANT_API_KEY)? Without a URL, Memory() uses the "
                        "embedded store."
                    ) from exc
                self._size_known = True
            return self._size

    def _create(self, size: int) -> None:
        from qdrant_client import models

        kinds = {
            "keyword": models.PayloadSchemaType.KEYWORD,
            "integer": models.PayloadSchemaType.INTEGER,
            "float": models.PayloadSchemaType.FLOAT,
        }
        with self._lock:
            if not self.client.collection_exists(self.collection):
                try:
                    self.client.create_collection(
                        self.collection,
                        vectors_config={VECTOR_NAME: models.VectorParams(size=size, distance=models.Distance.COSINE)},
                    )
                except Exception:
                    # Another process may have created it a moment ago; anything else is real.
                    if not self.client.collection_exists(self.collection):
                        raise
                with warnings.catch_warnings():  # qdrant-client's local mode warns indexes are no-ops
                    warnings.simplefilter("ignore", UserWarning)
                    for name, kind in INDEXES.items():
                        self.client.create_payload_index(self.collection, name, kinds[kind])
            self._size_known = False

    def _upsert(self, points: list[tuple[str, list[float], dict[str, Any]]]) -> None:
        from qdrant_client import models

        structs = [models.PointStruct(id=pid, vector={VECTOR_NAME: vec}, payload=payload) for pid, vec, payload in points]
        with self._lock:
            self.client.upsert(self.collection, points=structs, wait=True)

    def _query(self, vector: list[float], conds: list[Cond], limit: int) -> list[tuple[dict[str, Any], float]]:
        with self._lock:
            response = self.client.query_points(
                self.collection,
                query=vector,
                using=VECTOR_NAME,
                query_filter=_to_filter(conds),
                limit=limit,
                with_payload=True,
            )
        return [(dict(p.payload or {}), float(p.score)) for p in response.points]

    def _scroll(self, conds: list[Cond], limit: int, newest_first: bool | None) -> list[dict[str, Any]]:
        from qdrant_client import models

        order = None
        if newest_first is not None:
            direction = models.Direction.DESC if newest_first else models.Direction.ASC
            order = models.OrderBy(key="created_ts", direction=direction)
        with self._lock:
            records, _ = self.client.scroll(
                self.collection, scroll_filter=_to_filter(conds), limit=limit, with_payload=True, order_by=order
            )
        return [dict(r.payload or {}) for r in records]

    def _count(self, conds: list[Cond]) -> int:
        with self._lock:
            return int(self.client.count(self.collection, count_filter=_to_filter(conds), exact=True).count)

    def _facet(self, key: str, conds: list[Cond]) -> dict[str, int]:
        with self._lock:
            response = self.client.facet(
                self.collection, key=key, facet_filter=_to_filter(conds), limit=FACET_LIMIT, exact=True
            )
        return {str(hit.value): int(hit.count) for hit in response.hits}

    def _delete(self, conds: list[Cond]) -> None:
        from qdrant_client import models

        selector = models.FilterSelector(filter=_to_filter(conds or [Cond("eq", "scope_ancestors", "/")]))
        with self._lock:
            self.client.delete(self.collection, points_selector=selector, wait=True)

    def _retrieve(self, ids: list[str], with_vector: bool) -> list[tuple[dict[str, Any], list[float] | None]]:
        with self._lock:
            found = self.client.retrieve(self.collection, ids=ids, with_payload=True, with_vectors=with_vector)
        out: list[tuple[dict[str, Any], list[float] | None]] = []
        for rec in found:
            vec = rec.vector.get(VECTOR_NAME) if isinstance(rec.vector, dict) else rec.vector
            out.append((dict(rec.payload or {}), [float(x) for x in vec] if vec else None))
        return out

    def _drop(self) -> None:
        with self._lock:
            if self.client.collection_exists(self.collection):
                self.client.delete_collection(self.collection)
            self._size_known = False
