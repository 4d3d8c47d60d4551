"""The Tavily tools: search, extract, and research tasks, on Tavily's REST API (``TAVILY_API_KEY``).

``POST {base}/search``, ``POST {base}/extract``, ``POST {base}/research`` and
``GET {base}/research/{request_id}``, with ``Authorization: Bearer <key>``,
as Tavily documents (and as its ``tavily-python`` SDK sends them; no SDK is
needed). ``base_url=`` or ``TAVILY_BASE_URL`` moves the API (default
``https://api.tavily.com``). Like CrewAI's tools, each answers with Tavily's
reply as indented JSON; search results' ``content`` is cut to
``max_content_length_per_result`` characters.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = [
    "TavilyExtractorTool",
    "TavilyExtractorToolSchema",
    "TavilyGetResearchTool",
    "TavilyGetResearchToolSchema",
    "TavilyResearchTool",
    "TavilyResearchToolSchema",
    "TavilySearchTool",
    "TavilySearchToolSchema",
]


class TavilySearchToolSchema(BaseModel):
    """Input for TavilySearchTool."""

    query: str = Field(..., description="The search query string.")


class TavilyExtractorToolSchema(BaseModel):
    """Input for TavilyExtractorTool."""

    urls: list[str] | str = Field(..., description="The URL(s) to extract data from: one URL or a list.")


CitationFormat = Literal["numbered", "mla", "apa", "chicago"]
ResearchModel = Literal["mini", "pro", "auto"]


class TavilyResearchToolSchema(BaseModel):
    """Input for TavilyResearchTool."""

    input: str = Field(..., description="The research task or question to investigate.")
    model: ResearchModel = Field(default="auto", description="The model of Tavily's research agent.")
    output_schema: dict[str, Any] | None = Field(default=None, description="JSON Schema structuring the output.")
    stream: bool = Field(default=False, description="Stream progress (not supported here: leave false).")
    citation_format: CitationFormat = Field(default="numbered", description="Citation format of the report.")


class TavilyGetResearchToolSchema(BaseModel):
    """Input for TavilyGetResearchTool."""

    request_id: str = Field(..., description="Existing Tavily research request ID to fetch status and results for.")


class _TavilyTool(HostedTool):
    timeout: float = Field(default=60.0, gt=0, description="Seconds allowed for each request")

    _service: ClassVar[str] = "Tavily"
    _key_envs: ClassVar[tuple[str, ...]] = ("TAVILY_API_KEY",)
    _base_env: ClassVar[str | None] = "TAVILY_BASE_URL"
    _default_base: ClassVar[str] = "https://api.tavily.com"
    _unsupported: ClassVar[dict[str, str]] = {
        "client": "the tool calls Tavily's REST API itself; pass api_key=/base_url= instead of a client",
        "async_client": "the tool calls Tavily's REST API itself; pass api_key=/base_url= instead of a client",
        "proxies": "set HTTPS_PROXY in the environment instead (httpx reads it)",
    }

    def _send(self, method: str, path: str, body: dict[str, Any] | None = None) -> str | ToolFailure:
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        reply = self._call(method, path, headers={"Authorization": f"Bearer {key}"}, json_body=body)
        if isinstance(reply, ToolFailure):
            return reply
        return json.dumps(self._shape(reply), indent=2, ensure_ascii=False)

    def _shape(self, reply: Any) -> Any:
        return reply


class TavilySearchTool(_TavilyTool):
    """Web search built for agents: results with content, and optionally an answer and images."""

    name: str = "Tavily Search"
    description: str = (
        "A tool that performs web searches using the Tavily Search API. "
        "It returns a JSON object containing the search results."
    )
    args_schema: type[BaseModel] = TavilySearchToolSchema
    search_depth: Literal["basic", "advanced"] = "basic"
    topic: Literal["general", "news", "finance"] = "general"
    time_range: Literal["day", "week", "month", "year"] | None = None
    days: int = Field(default=7, ge=1, description="Days back to search (news topic)")
    max_results: int = Field(default=5, ge=1, le=20)
    include_domains: Sequence[str] | None = None
    exclude_domains: Sequence[str] | None = None
    include_answer: bool | Literal["basic", "advanced"] = False
    include_raw_content: bool = False
    include_images: bool = False
    max_content_length_per_result: int = Field(default=1000, ge=1)

    def _run(self, query: str) -> str | ToolFailure:
        body: dict[str, Any] = {
            "query": query,
            "search_depth": self.search_depth,
            "topic": self.topic,
            "days": self.days,
            "max_results": self.max_results,
            "include_answer": self.include_answer,
            "include_raw_content": self.include_raw_content,
            "include_images": self.include_images,
        }
        if self.time_range:
            body["time_range"] = self.time_range
        if self.include_domains:
            body["include_domains"] = list(self.include_domains)
        if self.exclude_domains:
            body["exclude_domains"] = list(self.exclude_domains)
        return self._send("POST", "/search", body)

    def _shape(self, reply: Any) -> Any:
        limit = self.max_content_length_per_result
        for item in reply.get("results", []) if isinstance(reply, dict) else []:
            content = item.get("content") if isinstance(item, dict) else None
            if isinstance(content, str) and len(content) > limit:
                item["content"] = content[:limit] + "..."
        return reply


class TavilyExtractorTool(_TavilyTool):
    """The content of one or more web pages, extracted by Tavily."""

    name: str = "TavilyExtractorTool"
    description: str = "Extracts content from one or more web pages using the Tavily API. Returns structured data."
    args_schema: type[BaseModel] = TavilyExtractorToolSchema
    extract_depth: Literal["basic", "advanced"] = "basic"
    include_images: bool = False

    def _run(self, urls: list[str] | str) -> str | ToolFailure:
        body = {"urls": urls, "extract_depth": self.extract_depth, "include_images": self.include_images}
        return self._send("POST", "/extract", body)


class TavilyResearchTool(_TavilyTool):
    """Starts a Tavily research task; its reply holds the ``request_id`` to fetch the report with."""

    name: str = "Tavily Research"
    description: str = (
        "A tool that creates Tavily research tasks. It returns Tavily's response as JSON, "
        "with the request_id that Tavily Get Research fetches the results with."
    )
    args_schema: type[BaseModel] = TavilyResearchToolSchema
    model: ResearchModel = "auto"
    output_schema: dict[str, Any] | None = None
    stream: bool = False
    citation_format: CitationFormat = "numbered"

    def validate_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Only the arguments the model gave: the others fall back to the tool's defaults, not the schema's."""
        validated = self.args_schema.model_validate(arguments)
        return {name: getattr(validated, name) for name in validated.model_fields_set}

    def _run(
        self,
        input: str,
        model: ResearchModel | None = None,
        output_schema: dict[str, Any] | None = None,
        stream: bool | None = None,
        citation_format: CitationFormat | None = None,
    ) -> str | ToolFailure:
        if stream if stream is not None else self.stream:
            return ToolFailure(
                message="TavilyResearchTool: streaming (stream=True) is not supported; "
                "start the task with stream=False and fetch it with TavilyGetResearchTool.",
                code="unsupported_option",
            )
        body: dict[str, Any] = {
            "input": input,
            "model": model or self.model,
            "citation_format": citation_format or self.citation_format,
            "stream": False,
        }
        schema = output_schema if output_schema is not None else self.output_schema
        if schema is not None:
            body["output_schema"] = schema
        return self._send("POST", "/research", body)


class TavilyGetResearchTool(_TavilyTool):
    """Status and, once done, results of a research task started with :class:`TavilyResearchTool`."""

    name: str = "Tavily Get Research"
    description: str = (
        "A tool that retrieves the status and results of an existing Tavily research task by request ID. "
        "It returns Tavily responses as JSON."
    )
    args_schema: type[BaseModel] = TavilyGetResearchToolSchema

    def _run(self, request_id: str) -> str | ToolFailure:
        from urllib.parse import quote

        return self._send("GET", f"/research/{quote(request_id, safe='')}")
