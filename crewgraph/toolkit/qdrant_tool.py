"""QdrantVectorSearchTool: similarity search in a Qdrant collection (qdrant-client).

The query is embedded (OpenAI ``text-embedding-3-large`` with ``OPENAI_API_KEY``
by default, as in CrewAI; or ``custom_embedding_fn``, a callable ``str ->
list[float]`` or its import path; or any memory ``embedder`` config) and sent
as one ``query_points`` on ``qdrant_config.collection_name`` with
``limit``, ``score_threshold`` and the filter (``qdrant_config.filter`` plus
the model's ``filter_by`` = ``filter_value``). The answer is CrewAI's JSON
list of ``{"distance", "metadata", "context"}`` (the points' ``metadata`` and
``text`` payload fields).

``qdrant_config.qdrant_url`` is a server (``http://...``), or — crewgraph's
addition — ``":memory:"`` or a directory for qdrant-client's embedded engine;
``client=`` takes a ready ``QdrantClient``. Install with
``pip install 'crewgraph[qdrant]'``.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import threading
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from crewgraph.toolkit._hosted import first_env, missing_library
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["QdrantConfig", "QdrantToolSchema", "QdrantVectorSearchTool"]


class QdrantToolSchema(BaseModel):
    """Input for QdrantVectorSearchTool."""

    query: str = Field(..., description="Query to search in Qdrant DB - always required.")
    filter_by: str | None = Field(default=None, description=(
        "Parameter to filter the search by. When filtering, needs to be used in conjunction with filter_value."))
    filter_value: Any | None = Field(default=None, description=(
        "Value to filter the search by. When filtering, needs to be used in conjunction with filter_by."))


class QdrantConfig(BaseModel):
    """Where the collection is and how it is searched (CrewAI's names)."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    qdrant_url: str = Field(..., description="http(s)://host:6333, or ':memory:' / a directory (embedded)")
    qdrant_api_key: str | None = Field(default=None, repr=False)
    collection_name: str = Field(..., min_length=1)
    limit: int = Field(default=3, ge=1)
    score_threshold: float = 0.35
    filter: Any | None = Field(default=None, description="Qdrant Filter instance for advanced filtering.")


class QdrantVectorSearchTool(BaseTool):
    """Searches one collection; see the module doc for the embedding and the result shape."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    name: str = "QdrantVectorSearchTool"
    description: str = "Search Qdrant vector DB for relevant documents."
    args_schema: type[BaseModel] = QdrantToolSchema
    qdrant_config: QdrantConfig
    qdrant_package: Any = Field(default="qdrant_client", description="The qdrant_client module or its import path")
    custom_embedding_fn: Callable[[str], list[float]] | str | None = Field(
        default=None, description="Embedding function (str -> vector) or its import path 'module.function'")
    embedder: dict[str, Any] | Callable[[list[str]], list[list[float]]] | None = Field(
        default=None, description="A memory embedder config or callable, instead of OpenAI")
    embedding_model: str = Field(default="text-embedding-3-large", description="OpenAI model used by default")
    client: Any | None = Field(default=None, repr=False, exclude=True)
    _embed: Any = PrivateAttr(default=None)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def env_var_names(cls) -> tuple[str, ...]:
        """``OPENAI_API_KEY`` (and ``OPENAI_BASE_URL``) for the default embedding."""
        return ("OPENAI_API_KEY", "OPENAI_BASE_URL")

    def config_problems(self) -> list[str]:
        problems = []
        if self.client is None and isinstance(self.qdrant_package, str) \
                and importlib.util.find_spec(self.qdrant_package.split(".")[0]) is None:
            problems.append(missing_library("QdrantVectorSearchTool", "qdrant-client", "'crewgraph[qdrant]'"))
        if self.custom_embedding_fn is None and self.embedder is None and not first_env("OPENAI_API_KEY"):
            problems.append("QdrantVectorSearchTool embeds with OpenAI by default: set OPENAI_API_KEY, "
                            "or pass custom_embedding_fn=... or embedder=...")
        return problems

    def _package(self) -> Any:
        if isinstance(self.qdrant_package, str):
            try:
                self.qdrant_package = importlib.import_module(self.qdrant_package)
            except ImportError:
                raise ImportError(missing_library("QdrantVectorSearchTool", "qdrant-client", "'crewgraph[qdrant]'")) from None
        return self.qdrant_package

    def _client(self) -> Any:
        with self._lock:
            if self.client is None:
                package, cfg = self._package(), self.qdrant_config
                url = cfg.qdrant_url
                if url.startswith(("http://", "https://")):
                    self.client = package.QdrantClient(url=url, api_key=cfg.qdrant_api_key or None)
                elif url == ":memory:":
                    self.client = package.QdrantClient(location=":memory:")
                else:
                    self.client = package.QdrantClient(path=url)
            return self.client

    def _vector(self, query: str) -> list[float]:
        fn = self.custom_embedding_fn
        if isinstance(fn, str):
            module, _, attr = fn.rpartition(".")
            if not module:
                raise ValueError(f"custom_embedding_fn {fn!r} is not an import path 'module.function'")
            fn = self.custom_embedding_fn = getattr(importlib.import_module(module), attr)
        if fn is not None:
            return [float(x) for x in fn(query)]
        if self._embed is None:
            from crewgraph.rag.embeddings.factory import build_embedder

            self._embed = build_embedder(self.embedder or {"provider": "openai",
                                                           "config": {"model_name": self.embedding_model}})
        return [float(x) for x in self._embed([query])[0]]

    def _filter(self, models: Any, filter_by: str | None, filter_value: Any) -> Any:
        base = self.qdrant_config.filter
        search = base.model_copy(deep=True) if base is not None else models.Filter(must=[])
        if filter_by and filter_value is not None:
            if not isinstance(search.must, list):
                search.must = [] if search.must is None else [search.must]
            search.must.append(models.FieldCondition(key=filter_by, match=models.MatchValue(value=filter_value)))
        return search

    def _run(self, query: str, filter_by: str | None = None, filter_value: Any | None = None) -> str | ToolFailure:
        if bool(filter_by) != (filter_value is not None):
            return ToolFailure(message="filter_by and filter_value go together: give both or neither.",
                               code="invalid_filter")
        try:
            client = self._client()
            models = self._package().http.models
        except ImportError as exc:
            return ToolFailure(message=str(exc), code="missing_library")
        except Exception as exc:  # a locked embedded store, a bad URL
            return ToolFailure(message=f"Could not open Qdrant at {self.qdrant_config.qdrant_url!r}: {exc}",
                               code="database_unavailable")
        try:
            vector = self._vector(query)
        except Exception as exc:  # the embedding service's own error, named
            return ToolFailure(message=f"Could not embed the query: {type(exc).__name__}: {exc}", code="embedding_failed",
                               retryable=True)
        try:
            results = client.query_points(
                collection_name=self.qdrant_config.collection_name, query=vector,
                query_filter=self._filter(models, filter_by, filter_value), limit=self.qdrant_config.limit,
                score_threshold=self.qdrant_config.score_threshold, with_payload=True)
        except Exception as exc:  # qdrant-client raises ValueError (embedded) or UnexpectedResponse (server)
            return ToolFailure(message=f"Qdrant search in {self.qdrant_config.collection_name!r} failed: {exc}",
                               code="search_failed", retryable="timed out" in str(exc).lower())
        return json.dumps([
            {"distance": p.score, "metadata": (p.payload or {}).get("metadata", {}),
             "context": (p.payload or {}).get("text", "")}
            for p in results.points
        ], indent=2)
