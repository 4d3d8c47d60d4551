"""WeaviateVectorSearchTool: hybrid search in a Weaviate collection over its REST and GraphQL API (httpx).

The collection's scalar properties are read once (``GET /v1/schema/{collection}``);
each search is one GraphQL ``Get`` with ``hybrid: {query, alpha}`` and
``limit`` (``POST /v1/graphql``), sent with the cluster's API key (``Bearer``)
and ``X-OpenAI-Api-Key`` from ``OPENAI_API_KEY`` for the collection's OpenAI
vectorizer, as CrewAI does. The answer is CrewAI's: each object's properties
as indented JSON, one after the other.

CrewAI creates a missing collection with its ``vectorizer`` and
``generative_model`` (weaviate-client objects); crewgraph does not create
collections, so those two options are refused and a missing collection is a
``ToolFailure``. No weaviate-client is needed.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from pydantic import BaseModel, Field, PrivateAttr, model_validator

from crewgraph.toolkit._hosted import HostedTool, first_env
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["WeaviateToolSchema", "WeaviateVectorSearchTool"]

_CLASS_NAME = re.compile(r"^[A-Z][_0-9A-Za-z]*$")
_SCALARS = {"text", "string", "int", "number", "boolean", "date", "uuid", "text[]", "string[]", "int[]",
            "number[]", "boolean[]", "date[]", "uuid[]"}


class WeaviateToolSchema(BaseModel):
    """Input for WeaviateVectorSearchTool."""

    query: str = Field(..., description=("The query to search and retrieve relevant information from the Weaviate "
                                         "database. Pass only the query, not the question."))


class WeaviateVectorSearchTool(HostedTool):
    """Hybrid (keyword + vector) search in ``collection_name``."""

    name: str = "WeaviateVectorSearchTool"
    description: str = "A tool to search the Weaviate database for relevant information on internal documents."
    args_schema: type[BaseModel] = WeaviateToolSchema
    collection_name: str = Field(..., description="The name of the Weaviate collection to search")
    weaviate_cluster_url: str = Field(..., description="The URL of the Weaviate cluster")
    weaviate_api_key: str = Field(..., repr=False, exclude=True, description="The API key for the Weaviate cluster")
    limit: int | None = Field(default=3, ge=1)
    alpha: float = Field(default=0.75, ge=0, le=1)
    headers: dict[str, str] | None = None
    query: str | None = None
    _properties: list[str] | None = PrivateAttr(default=None)

    _service: ClassVar[str] = "Weaviate"
    _other_envs: ClassVar[tuple[str, ...]] = ("OPENAI_API_KEY",)

    @model_validator(mode="before")
    @classmethod
    def _refuse_creation_options(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for name in ("vectorizer", "generative_model"):
                if data.get(name) is not None:
                    raise ValueError(f"WeaviateVectorSearchTool({name}=...) is not supported: crewgraph searches an "
                                     "existing collection and does not create one; create it with its vectorizer first")
        return data

    def config_problems(self) -> list[str]:
        problems = []
        if not _CLASS_NAME.match(self.collection_name):
            problems.append(f"WeaviateVectorSearchTool: collection_name {self.collection_name!r} is not a Weaviate "
                            "collection name (a capital letter, then letters, digits or _)")
        if not first_env("OPENAI_API_KEY") and not (self.headers or {}).get("X-OpenAI-Api-Key"):
            problems.append("WeaviateVectorSearchTool needs OPENAI_API_KEY for the collection's OpenAI vectorizer")
        return problems

    def _headers(self) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self.weaviate_api_key}"}
        openai_key = first_env("OPENAI_API_KEY")
        if openai_key:
            headers["X-OpenAI-Api-Key"] = openai_key
        headers.update(self.headers or {})
        return headers

    def _base(self) -> str:
        url = self.base_url or self.weaviate_cluster_url
        return (url if "://" in url else "https://" + url).rstrip("/")

    def _schema(self) -> list[str] | ToolFailure:
        if self._properties is None:
            schema = self._call("GET", "", headers=self._headers(), url=f"{self._base()}/v1/schema/{self.collection_name}")
            if isinstance(schema, ToolFailure):
                return schema
            props = [p["name"] for p in schema.get("properties", [])
                     if set(p.get("dataType") or []) <= _SCALARS and p.get("name")]
            if not props:
                return ToolFailure(message=f"The collection {self.collection_name!r} has no searchable properties.",
                                   code="empty_collection")
            self._properties = props
        return self._properties

    def _run(self, query: str) -> str | ToolFailure:
        problems = [p for p in self.config_problems() if "collection_name" in p]
        if problems:
            return ToolFailure(message=problems[0], code="invalid_configuration")
        props = self._schema()
        if isinstance(props, ToolFailure):
            return props
        limit = f", limit: {int(self.limit)}" if self.limit else ""
        graphql = (f"{{ Get {{ {self.collection_name}(hybrid: {{query: {json.dumps(query)}, "
                   f"alpha: {float(self.alpha)}}}{limit}) {{ {' '.join(props)} }} }} }}")
        answer = self._call("POST", "", headers=self._headers(), json_body={"query": graphql},
                            url=f"{self._base()}/v1/graphql")
        if isinstance(answer, ToolFailure):
            return answer
        if answer.get("errors"):
            messages = "; ".join(str(e.get("message", e)) for e in answer["errors"])
            return ToolFailure(message=f"Weaviate refused the search: {messages}", code="search_failed")
        objects = ((answer.get("data") or {}).get("Get") or {}).get(self.collection_name) or []
        return "".join(json.dumps(obj, indent=2) for obj in objects)
