"""MongoDBVectorSearchTool: Atlas Vector Search over a MongoDB collection (pymongo).

The query is embedded (OpenAI ``embedding_model`` with ``dimensions`` by
default, as in CrewAI, or any ``embedder`` config crewgraph's memory accepts)
and sent as one ``aggregate``: ``$vectorSearch`` on ``vector_index_name`` over
``embedding_key`` (``numCandidates = limit * oversampling_factor``, the
optional ``pre_filter``), the score added with ``$meta: "vectorSearchScore"``,
the embedding dropped unless ``include_embeddings``, then
``post_filter_pipeline``. ``add_texts`` embeds and inserts documents and
``create_vector_search_index`` creates the index and waits until it is
queryable. pymongo comes with ``pip install 'crewgraph[tools]'``.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr

from crewgraph.toolkit._hosted import first_env, missing_library
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["MongoDBToolSchema", "MongoDBVectorSearchConfig", "MongoDBVectorSearchTool"]


class MongoDBVectorSearchConfig(BaseModel):
    """How a search is run (CrewAI's names)."""

    limit: int = Field(default=4, ge=1, description="Documents returned")
    pre_filter: dict[str, Any] | None = Field(default=None, description="$vectorSearch filter on indexed fields")
    post_filter_pipeline: list[dict[str, Any]] | None = Field(default=None, description="Stages run after the search")
    oversampling_factor: int = Field(default=10, ge=1, description="numCandidates = limit * this")
    include_embeddings: bool = Field(default=False, description="Keep the embedding field in the results")


class MongoDBToolSchema(BaseModel):
    """Input for MongoDBVectorSearchTool."""

    query: str = Field(..., description="The query to search retrieve relevant information from the MongoDB database.")


class MongoDBVectorSearchTool(BaseTool):
    """Vector search in ``database_name.collection_name``; results as JSON documents with a ``score``."""

    name: str = "MongoDBVectorSearchTool"
    description: str = "A tool to perfrom a vector search on a MongoDB database for relevant information on internal documents."
    args_schema: type[BaseModel] = MongoDBToolSchema
    connection_string: str = Field(..., repr=False, exclude=True, description="MongoDB connection string")
    database_name: str = Field(..., min_length=1)
    collection_name: str = Field(..., min_length=1)
    vector_index_name: str = "vector_index"
    text_key: str = "text"
    embedding_key: str = "embedding"
    dimensions: int = Field(default=1536, ge=1)
    embedding_model: str = "text-embedding-3-large"
    embedder: dict[str, Any] | Callable[[list[str]], list[list[float]]] | None = Field(
        default=None, description="Another embedder (a memory embedder config or a callable); default: OpenAI embedding_model"
    )
    query_config: MongoDBVectorSearchConfig | None = None
    timeout: float = Field(default=30.0, gt=0, description="Seconds allowed to connect and per operation")
    _client: Any = PrivateAttr(default=None)
    _embed: Any = PrivateAttr(default=None)

    def config_problems(self) -> list[str]:
        problems = []
        if importlib.util.find_spec("pymongo") is None:
            problems.append(missing_library("MongoDBVectorSearchTool", "pymongo", "'crewgraph[tools]'"))
        if self.embedder is None and not first_env("OPENAI_API_KEY"):
            problems.append("MongoDBVectorSearchTool embeds with OpenAI by default: set OPENAI_API_KEY or pass embedder=...")
        return problems

    # -- parts ----------------------------------------------------------------------
    def _embedder(self) -> Any:
        if self._embed is None:
            from crewgraph.rag.embeddings.factory import build_embedder

            spec = self.embedder or {"provider": "openai", "config": {"model_name": self.embedding_model,
                                                                     "dimensions": self.dimensions}}
            self._embed = build_embedder(spec)
        return self._embed

    def _collection(self) -> Any:
        if self._client is None:
            from crewgraph.toolkit._mongo import mongo_client

            self._client = mongo_client(self.connection_string, int(self.timeout * 1000))
        return self._client[self.database_name][self.collection_name]

    def close(self) -> None:
        """Close the MongoDB connection (it is opened again on the next use)."""
        if self._client is not None:
            self._client.close()
            self._client = None

    # -- search ---------------------------------------------------------------------
    def pipeline(self, vector: list[float]) -> list[dict[str, Any]]:
        """The aggregation pipeline for one query vector."""
        cfg = self.query_config or MongoDBVectorSearchConfig()
        search: dict[str, Any] = {"index": self.vector_index_name, "path": self.embedding_key, "queryVector": vector,
                                  "numCandidates": cfg.limit * cfg.oversampling_factor, "limit": cfg.limit}
        if cfg.pre_filter:
            search["filter"] = cfg.pre_filter
        stages: list[dict[str, Any]] = [{"$vectorSearch": search}, {"$set": {"score": {"$meta": "vectorSearchScore"}}}]
        if not cfg.include_embeddings:
            stages.append({"$project": {self.embedding_key: 0}})
        stages.extend(cfg.post_filter_pipeline or [])
        return stages

    def _run(self, query: str) -> list[dict[str, Any]] | ToolFailure:
        try:
            from pymongo.errors import PyMongoError
        except ImportError:
            return ToolFailure(message=missing_library("MongoDBVectorSearchTool", "pymongo", "'crewgraph[tools]'"), code="missing_library")
        vector = [float(x) for x in self._embedder()([query])[0]]
        try:
            docs = list(self._collection().aggregate(self.pipeline(vector)))
        except PyMongoError as exc:
            return ToolFailure(message=f"MongoDB vector search in {self.database_name}.{self.collection_name} failed: {exc}",
                               code="mongodb_error", retryable=type(exc).__name__ in ("AutoReconnect", "NetworkTimeout",
                                                                                     "ServerSelectionTimeoutError"))
        for doc in docs:
            if "_id" in doc:
                doc["_id"] = str(doc["_id"])
        return docs

    # -- helpers CrewAI offers -------------------------------------------------------
    def add_texts(self, texts: list[str], metadatas: list[dict[str, Any]] | None = None,
                  ids: list[str] | None = None, batch_size: int = 100) -> list[str]:
        """Embed ``texts`` and insert them (with their metadata); returns the documents' ids."""
        from crewgraph.toolkit._mongo import insert_embedded

        return insert_embedded(self._collection(), self._embedder(), texts, metadatas, ids, batch_size,
                               self.text_key, self.embedding_key)

    def create_vector_search_index(self, *, dimensions: int | None = None, relevance_score_fn: str = "cosine",
                                   auto_index_timeout: float = 15, filter_fields: list[str] | None = None) -> None:
        """Create ``vector_index_name`` on ``embedding_key`` and wait until it can be queried."""
        from pymongo.operations import SearchIndexModel

        fields: list[dict[str, Any]] = [{"type": "vector", "path": self.embedding_key,
                                         "numDimensions": dimensions or self.dimensions, "similarity": relevance_score_fn}]
        fields += [{"type": "filter", "path": f} for f in filter_fields or []]
        collection = self._collection()
        collection.create_search_index(SearchIndexModel(definition={"fields": fields}, name=self.vector_index_name,
                                                        type="vectorSearch"))
        deadline = time.monotonic() + auto_index_timeout
        while True:
            ready = [i for i in collection.list_search_indexes(self.vector_index_name) if i.get("queryable")]
            if ready:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"the vector index {self.vector_index_name!r} was not queryable after {auto_index_timeout:g}s")
            time.sleep(0.5)
