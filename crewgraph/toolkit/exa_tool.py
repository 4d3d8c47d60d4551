"""EXASearchTool (also ``ExaSearchTool``): web search through Exa's ``/search`` API (``EXA_API_KEY``).

``POST {base}/search`` with the ``x-api-key`` header and ``{"query", "type",
"contents"}``; ``contents`` asks for highlights (default), the full text
(``content=True``) and/or a summary (``summary=True``), as CrewAI's options
do. ``EXA_BASE_URL`` or ``base_url=`` moves the endpoint.
"""

from __future__ import annotations

import builtins
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["EXASearchTool", "EXASearchToolSchema", "ExaSearchTool"]


class EXASearchToolSchema(BaseModel):
    """Input for EXASearchTool."""

    search_query: str = Field(..., description="Mandatory search query you want to use to search the internet")
    start_published_date: str | None = Field(default=None, description="Only results published after this ISO 8601 date")
    end_published_date: str | None = Field(default=None, description="Only results published before this ISO 8601 date")
    include_domains: list[str] | None = Field(default=None, description="Only results from these domains")


class EXASearchTool(HostedTool):
    """Search the web with Exa; each result has its title, URL, date, highlights or text."""

    name: str = "ExaSearchTool"
    description: str = "Search the internet using Exa"
    args_schema: builtins.type[BaseModel] = EXASearchToolSchema
    type: Literal["auto", "instant", "fast", "deep", "neural", "keyword"] = "auto"
    content: bool = Field(default=False, description="Include each page's full text")
    summary: bool = Field(default=False, description="Include an AI-generated summary of each result")
    highlights: bool | dict[str, Any] = Field(default=True, description="Token-efficient excerpts (a dict configures them)")
    num_results: int | None = Field(default=None, ge=1, le=100, description="Results per search (Exa's default: 10)")

    _service: ClassVar[str] = "Exa"
    _key_envs: ClassVar[tuple[str, ...]] = ("EXA_API_KEY",)
    _base_env: ClassVar[str | None] = "EXA_BASE_URL"
    _default_base: ClassVar[str] = "https://api.exa.ai"

    def _run(
        self,
        search_query: str,
        start_published_date: str | None = None,
        end_published_date: str | None = None,
        include_domains: list[str] | None = None,
    ) -> list[dict[str, Any]] | ToolFailure:
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        contents: dict[str, Any] = {}
        if self.highlights:
            contents["highlights"] = self.highlights if isinstance(self.highlights, dict) else True
        if self.content:
            contents["text"] = True
        if self.summary:
            contents["summary"] = True
        body: dict[str, Any] = {"query": search_query, "type": self.type}
        if contents:
            body["contents"] = contents
        if self.num_results:
            body["numResults"] = self.num_results
        if start_published_date:
            body["startPublishedDate"] = start_published_date
        if end_published_date:
            body["endPublishedDate"] = end_published_date
        if include_domains:
            body["includeDomains"] = list(include_domains)
        reply = self._call("POST", "/search", headers={"x-api-key": key}, json_body=body)
        if isinstance(reply, ToolFailure):
            return reply
        results = reply.get("results") if isinstance(reply, dict) else None
        if not isinstance(results, list):
            return ToolFailure(message="Exa's reply has no 'results' list", code="invalid_response")
        keep = ("title", "url", "publishedDate", "author", "score", "highlights", "text", "summary")
        return [{k: r[k] for k in keep if r.get(k) not in (None, "", [])} for r in results if isinstance(r, dict)]


class ExaSearchTool(EXASearchTool):
    """The newer CrewAI spelling of :class:`EXASearchTool` (both are named "ExaSearchTool", as in CrewAI)."""
