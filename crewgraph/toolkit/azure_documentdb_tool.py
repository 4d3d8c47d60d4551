"""AzureDocumentDBVectorSearchTool: vector search in Azure DocumentDB (MongoDB-compatible, ex Cosmos DB vCore).

Azure DocumentDB speaks MongoDB's wire protocol, so the tool is a pymongo
client (the ``tools`` extra, like MongoDBVectorSearchTool). Its vector search
is not Atlas's ``$vectorSearch`` but DocumentDB's documented ``$search`` stage
with ``cosmosSearch`` (``vector``, ``path``, ``k``, and the index kind's
knobs: ``efSearch`` for HNSW, ``lSearch`` for DiskANN, ``nProbes`` for IVF;
``filter`` on indexed fields), ``returnStoredSource: true``, then
``$project`` of ``{"$meta": "searchScore"}`` beside the document. Results are
the documents (embedding dropped unless ``include_embeddings``) each with a
``score``, as MongoDBVectorSearchTool returns them.

The connection string comes from ``connection_string=`` or
``AZURE_DOCUMENTDB_CONNECTION_STRING``. The query is embedded with Azure
OpenAI when ``AZURE_OPENAI_ENDPOINT`` and ``AZURE_OPENAI_API_KEY`` are set
(``OPENAI_API_VERSION``), else OpenAI (``OPENAI_API_KEY``), with
``embedding_model`` and ``dimensions``; ``embedder=`` takes any embedder config
crewgraph's memory accepts. ``add_texts`` and ``create_vector_index`` (the
``createIndexes`` command with ``cosmosSearchOptions``) fill a collection.
Entra ID sign-in (``use_azure_identity=True``) is not provided: see its error.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from crewgraph.toolkit._hosted import first_env, missing_library
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["AzureDocumentDBToolSchema", "AzureDocumentDBVectorSearchConfig", "AzureDocumentDBVectorSearchTool"]

_ENV = "AZURE_DOCUMENTDB_CONNECTION_STRING"
_RETRYABLE = ("AutoReconnect", "NetworkTimeout", "ServerSelectionTimeoutError", "ConnectionFailure")


class AzureDocumentDBVectorSearchConfig(BaseModel):
    """How one search is run (``cosmosSearch``'s knobs; leave a knob None for the index's default)."""

    model_config = ConfigDict(extra="forbid")

    limit: int = Field(default=4, ge=1, description="Documents returned (cosmosSearch's k)")
    pre_filter: dict[str, Any] | None = Field(default=None, description="cosmosSearch filter on indexed fields")
    post_filter_pipeline: list[dict[str, Any]] | None = Field(
        default=None, description="Stages run after the search, on {similarityScore, document}")
    include_embeddings: bool = Field(default=False, description="Keep the embedding field in the results")
    ef_search: int | None = Field(default=None, ge=1, description="HNSW: candidates searched (efSearch)")
    l_search: int | None = Field(default=None, ge=1, description="DiskANN: candidates searched (lSearch)")
    n_probes: int | None = Field(default=None, ge=1, description="IVF: clusters probed (nProbes)")


class AzureDocumentDBToolSchema(BaseModel):
    """Input for AzureDocumentDBVectorSearchTool."""

    query: str = Field(..., description="The query to retrieve relevant information from the Azure DocumentDB collection.")


class AzureDocumentDBVectorSearchTool(BaseTool):
    """Vector search in ``database_name.collection_name``; results as JSON documents with a ``score``."""

    name: str = "AzureDocumentDBVectorSearchTool"
    description: str = "A tool to perform a vector search on an Azure DocumentDB collection for relevant information."
    args_schema: type[BaseModel] = AzureDocumentDBToolSchema
    connection_string: str | None = Field(default=None, repr=False, exclude=True,
                                          description=f"MongoDB connection string (else {_ENV})")
    database_name: str = Field(..., min_length=1)
    collection_name: str = Field(..., min_length=1)
    vector_index_name: str = "vector_index"
    text_key: str = "text"
    embedding_key: str = "embedding"
    dimensions: int = Field(default=1536, ge=1)
    embedding_model: str = "text-embedding-3-small"
    embedder: dict[str, Any] | Callable[[list[str]], list[list[float]]] | None = Field(
        default=None, description="Another embedder (a memory embedder config or a callable); default: (Azure) OpenAI")
    query_config: AzureDocumentDBVectorSearchConfig | None = None
    connection_timeout_ms: int = Field(default=30_000, gt=0, description="Milliseconds to connect and per operation")
    use_azure_identity: bool = False
    package_dependencies: list[str] = Field(default_factory=lambda: ["pymongo"])
    _client: Any = PrivateAttr(default=None)
    _embed: Any = PrivateAttr(default=None)

    _env_vars: ClassVar[tuple[str, ...]] = (_ENV, "OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY",
                                            "OPENAI_API_VERSION")

    @classmethod
    def env_var_names(cls) -> tuple[str, ...]:
        """The variables CrewAI declares for the tool: the connection string's, then the embedder's."""
        return cls._env_vars

    @model_validator(mode="after")
    def _no_entra_id(self) -> AzureDocumentDBVectorSearchTool:
        if self.use_azure_identity:
            raise ValueError(
                "AzureDocumentDBVectorSearchTool(use_azure_identity=True) is not supported: crewgraph does not sign "
                "in with Microsoft Entra ID (MONGODB-OIDC through azure-identity). Pass a connection string "
                f"(connection_string=... or {_ENV}) with the cluster's user and password.")
        return self

    def config_problems(self) -> list[str]:
        problems = super().config_problems()
        if importlib.util.find_spec("pymongo") is None:
            problems.append(missing_library("AzureDocumentDBVectorSearchTool", "pymongo", "'crewgraph[tools]'"))
        if not (self.connection_string or first_env(_ENV)):
            problems.append(f"AzureDocumentDBVectorSearchTool needs a connection string: set {_ENV} "
                            "or pass connection_string=...")
        if self.embedder is None and not first_env("OPENAI_API_KEY") and not self._azure_openai():
            problems.append("AzureDocumentDBVectorSearchTool embeds with OpenAI by default: set OPENAI_API_KEY "
                            "(or AZURE_OPENAI_ENDPOINT and AZURE_OPENAI_API_KEY) or pass embedder=...")
        return problems

    # -- parts ----------------------------------------------------------------------
    @staticmethod
    def _azure_openai() -> bool:
        return bool(first_env("AZURE_OPENAI_ENDPOINT") and first_env("AZURE_OPENAI_API_KEY"))

    def _embedder(self) -> Any:
        if self._embed is None:
            from crewgraph.rag.embeddings.factory import build_embedder

            spec: Any = self.embedder
            if spec is None and self._azure_openai():
                spec = {"provider": "azure", "config": {
                    "model_name": self.embedding_model, "deployment_id": self.embedding_model,
                    "dimensions": self.dimensions, "api_key": first_env("AZURE_OPENAI_API_KEY"),
                    "api_base": first_env("AZURE_OPENAI_ENDPOINT"),
                    "api_version": first_env("OPENAI_API_VERSION") or "2024-06-01"}}
            elif spec is None:
                spec = {"provider": "openai", "config": {"model_name": self.embedding_model, "dimensions": self.dimensions}}
            self._embed = build_embedder(spec)
        return self._embed

    def _database(self) -> Any:
        if self._client is None:
            from crewgraph.toolkit._mongo import mongo_client

            uri = self.connection_string or first_env(_ENV)
            if not uri:
                raise ValueError(f"AzureDocumentDBVectorSearchTool has no connection string: set {_ENV}")
            self._client = mongo_client(uri, self.connection_timeout_ms)
        return self._client[self.database_name]

    def close(self) -> None:
        """Close the connection (it is opened again on the next use)."""
        if self._client is not None:
            self._client.close()
            self._client = None

    # -- search ---------------------------------------------------------------------
    def pipeline(self, vector: list[float]) -> list[dict[str, Any]]:
        """The aggregation pipeline for one query vector."""
        cfg = self.query_config or AzureDocumentDBVectorSearchConfig()
        search: dict[str, Any] = {"vector": vector, "path": self.embedding_key, "k": cfg.limit}
        for knob, name in ((cfg.ef_search, "efSearch"), (cfg.l_search, "lSearch"), (cfg.n_probes, "nProbes")):
            if knob is not None:
                search[name] = knob
        if cfg.pre_filter:
            search["filter"] = cfg.pre_filter
        return [{"$search": {"cosmosSearch": search, "returnStoredSource": True}},
                {"$project": {"similarityScore": {"$meta": "searchScore"}, "document": "$$ROOT"}},
                *(cfg.post_filter_pipeline or [])]

    def _run(self, query: str) -> list[dict[str, Any]] | ToolFailure:
        try:
            from pymongo.errors import PyMongoError
        except ImportError:
            return ToolFailure(message=missing_library("AzureDocumentDBVectorSearchTool", "pymongo", "'crewgraph[tools]'"),
                               code="missing_library")
        if not (self.connection_string or first_env(_ENV)):
            return ToolFailure(message=f"AzureDocumentDBVectorSearchTool has no connection string: set {_ENV} "
                               "or pass connection_string=...", code="missing_api_key")
        cfg = self.query_config or AzureDocumentDBVectorSearchConfig()
        vector = [float(x) for x in self._embedder()([query])[0]]
        try:
            rows = list(self._database()[self.collection_name].aggregate(self.pipeline(vector)))
        except PyMongoError as exc:
            return ToolFailure(
                message=f"Azure DocumentDB vector search in {self.database_name}.{self.collection_name} failed: {exc}",
                code="documentdb_error", retryable=type(exc).__name__ in _RETRYABLE)
        results = []
        for row in rows:
            doc = dict(row.get("document") or {})
            if not cfg.include_embeddings:
                doc.pop(self.embedding_key, None)
            if "_id" in doc:
                doc["_id"] = str(doc["_id"])
            doc["score"] = row.get("similarityScore")
            results.append(doc)
        return results

    # -- filling a collection -------------------------------------------------------------
    def add_texts(self, texts: list[str], metadatas: list[dict[str, Any]] | None = None,
                  ids: list[str] | None = None, batch_size: int = 100) -> list[str]:
        """Embed ``texts`` and insert them (with their metadata); returns the documents' ids."""
        from crewgraph.toolkit._mongo import insert_embedded

        return insert_embedded(self._database()[self.collection_name], self._embedder(), texts, metadatas, ids, batch_size,
                               self.text_key, self.embedding_key)

    def create_vector_index(self, *, kind: Literal["vector-hnsw", "vector-ivf", "vector-diskann"] = "vector-hnsw",
                            similarity: Literal["COS", "L2", "IP"] = "COS", dimensions: int | None = None,
                            **options: int) -> dict[str, Any]:
        """Create ``vector_index_name`` on ``embedding_key`` (``m``/``efConstruction``, ``numLists``,
        ``maxDegree``/``lBuild`` as ``options``); DocumentDB's reply."""
        spec = {"kind": kind, "similarity": similarity, "dimensions": dimensions or self.dimensions, **options}
        reply: dict[str, Any] = self._database().command({
            "createIndexes": self.collection_name,
            "indexes": [{"name": self.vector_index_name, "key": {self.embedding_key: "cosmosSearch"},
                         "cosmosSearchOptions": spec}]})
        return reply
