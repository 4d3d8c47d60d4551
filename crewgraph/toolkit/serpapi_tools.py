"""The SerpApi tools: Google search and Google Shopping through serpapi.com (``SERPAPI_API_KEY``).

``GET {base}/search?engine=google|google_shopping&q=...&location=...&api_key=...``,
as SerpApi documents (the ``serpapi`` SDK sends the same request; it is not
needed). ``base_url=`` or ``SERPAPI_BASE_URL`` moves the API (default
``https://serpapi.com``). As in CrewAI, the reply is handed back as a dict
without SerpApi's bookkeeping (``search_metadata``, ``search_parameters``,
``serpapi_*`` links, ``*_token``s, pagination...).
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = [
    "SerpApiGoogleSearchTool",
    "SerpApiGoogleSearchToolSchema",
    "SerpApiGoogleShoppingTool",
    "SerpApiGoogleShoppingToolSchema",
]


class SerpApiGoogleSearchToolSchema(BaseModel):
    """Input for SerpApiGoogleSearchTool."""

    search_query: str = Field(..., description="Mandatory search query you want to use to Google search.")
    location: str | None = Field(None, description="Location you want the search to be performed in.")


class SerpApiGoogleShoppingToolSchema(BaseModel):
    """Input for SerpApiGoogleShoppingTool."""

    search_query: str = Field(..., description="Mandatory search query you want to use to Google shopping.")
    location: str | None = Field(None, description="Location you want the search to be performed in.")


def _omit(data: Any, patterns: tuple[re.Pattern[str], ...]) -> None:
    if isinstance(data, dict):
        for key in list(data):
            if any(p.match(key) for p in patterns):
                del data[key]
            else:
                _omit(data[key], patterns)
    elif isinstance(data, list):
        for item in data:
            _omit(item, patterns)


class _SerpApiTool(HostedTool):
    _engine: ClassVar[str] = "google"
    _omitted: ClassVar[tuple[re.Pattern[str], ...]] = ()
    _service: ClassVar[str] = "SerpApi"
    _key_envs: ClassVar[tuple[str, ...]] = ("SERPAPI_API_KEY",)
    _base_env: ClassVar[str | None] = "SERPAPI_BASE_URL"
    _default_base: ClassVar[str] = "https://serpapi.com"
    _unsupported: ClassVar[dict[str, str]] = {
        "client": "the tool calls SerpApi's HTTP API itself; pass api_key=/base_url= instead of a client",
    }

    def _run(self, search_query: str, location: str | None = None) -> dict[str, Any] | ToolFailure:
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        params = {"engine": self._engine, "q": search_query, "output": "json", "api_key": key}
        if location:
            params["location"] = location
        reply = self._call("GET", "/search", params=params)
        if isinstance(reply, ToolFailure):
            return reply
        if not isinstance(reply, dict):
            return ToolFailure(message="SerpApi answered with something that is not an object", code="invalid_response")
        if reply.get("error"):
            return ToolFailure(
                message=f"SerpApi: {reply['error']}. Some parameters may be invalid.", code="serpapi_error"
            )
        _omit(reply, self._omitted)
        return reply


class SerpApiGoogleSearchTool(_SerpApiTool):
    """Google results (organic, answer box, knowledge graph...) as SerpApi parses them."""

    name: str = "Google Search"
    description: str = "A tool to perform to perform a Google search with a search_query."
    args_schema: type[BaseModel] = SerpApiGoogleSearchToolSchema
    _omitted: ClassVar[tuple[re.Pattern[str], ...]] = tuple(
        re.compile(p)
        for p in (r"search_metadata", r"search_parameters", r"serpapi_.+", r".+_token", r"displayed_link", r"pagination")
    )


class SerpApiGoogleShoppingTool(_SerpApiTool):
    """Google Shopping results (products, prices, sellers) as SerpApi parses them."""

    name: str = "Google Shopping"
    description: str = "A tool to perform search on Google shopping with a search_query."
    args_schema: type[BaseModel] = SerpApiGoogleShoppingToolSchema
    _engine: ClassVar[str] = "google_shopping"
    _omitted: ClassVar[tuple[re.Pattern[str], ...]] = tuple(
        re.compile(p) for p in (r"search_metadata", r"search_parameters", r"serpapi_.+", r"filters", r"pagination")
    )
