"""The Serply tools: Google web, news, scholar and job search, and a page as Markdown (``SERPLY_API_KEY``).

Each search is ``GET {base}/v1/{search|news|scholar|job/search}/q=...`` (Serply
puts the URL-encoded query in the path) with the ``X-API-KEY`` and
``X-Proxy-Location`` headers; the page tool is ``POST {base}/v1/request``
with ``{"url", "method": "GET", "response_type": "markdown"}``, as Serply
documents. ``base_url=`` or ``SERPLY_BASE_URL`` moves the API (default
``https://api.serply.io``); ``search_url=``/``request_url=`` replace one
tool's endpoint as in CrewAI. Results come back as CrewAI's text blocks
(``Title: ... Link: ... ---``).

CrewAI builds the job and Markdown tools on its RAG tool, but they only
ever call Serply; its RAG options (``adapter``, ``config``, ``summarize``...)
are rejected here with that said.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal
from urllib.parse import urlencode

from pydantic import BaseModel, Field

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = [
    "SerplyJobSearchTool",
    "SerplyJobSearchToolSchema",
    "SerplyNewsSearchTool",
    "SerplyNewsSearchToolSchema",
    "SerplyScholarSearchTool",
    "SerplyScholarSearchToolSchema",
    "SerplyWebSearchTool",
    "SerplyWebSearchToolSchema",
    "SerplyWebpageToMarkdownTool",
    "SerplyWebpageToMarkdownToolSchema",
]

ProxyLocation = Literal["US", "CA", "IE", "GB", "FR", "DE", "SE", "IN", "JP", "KR", "SG", "AU", "BR"]
_RAG_ONLY = "CrewAI's RAG options do nothing for this tool, which only calls Serply"


class SerplyWebSearchToolSchema(BaseModel):
    """Input for SerplyWebSearchTool."""

    search_query: str = Field(..., description="Mandatory search query you want to use to Google search")


class SerplyNewsSearchToolSchema(BaseModel):
    """Input for SerplyNewsSearchTool."""

    search_query: str = Field(..., description="Mandatory search query you want to use to fetch news articles")


class SerplyScholarSearchToolSchema(BaseModel):
    """Input for SerplyScholarSearchTool."""

    search_query: str = Field(..., description="Mandatory search query you want to use to fetch scholarly literature")


class SerplyJobSearchToolSchema(BaseModel):
    """Input for SerplyJobSearchTool."""

    search_query: str = Field(..., description="Mandatory search query you want to use to fetch jobs postings.")


class SerplyWebpageToMarkdownToolSchema(BaseModel):
    """Input for SerplyWebpageToMarkdownTool."""

    url: str = Field(..., description="Mandatory url you want to use to fetch and convert to markdown")


def _blocks(rows: list[list[str]]) -> str:
    content = "\n".join("\n".join([*row, "---"]) for row in rows)
    return f"\nSearch results: {content}\n"


class _SerplyTool(HostedTool):
    proxy_location: ProxyLocation = Field(default="US", description="Country the search runs from")
    headers: dict[str, str] = Field(default_factory=dict, description="Extra request headers")

    _path: ClassVar[str] = "/v1/search/"
    _service: ClassVar[str] = "Serply"
    _key_envs: ClassVar[tuple[str, ...]] = ("SERPLY_API_KEY",)
    _base_env: ClassVar[str | None] = "SERPLY_BASE_URL"
    _default_base: ClassVar[str] = "https://api.serply.io"
    _unsupported: ClassVar[dict[str, str]] = dict.fromkeys(
        ("adapter", "config", "summarize", "collection_name", "similarity_threshold"), _RAG_ONLY
    )

    def _headers(self, key: str) -> dict[str, str]:
        return {"User-Agent": "crew-tools", "X-Proxy-Location": self.proxy_location, **self.headers, "X-API-KEY": key}

    def _target(self) -> str | None:
        return None

    def _search(self, query: dict[str, Any], extra: dict[str, str] | None = None) -> Any:
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        base = self._target() or self.endpoint(self._path)
        reply = self._call("GET", "", url=base + urlencode(query), headers={**self._headers(key), **(extra or {})})
        if not isinstance(reply, ToolFailure | dict):
            return ToolFailure(message="Serply answered with something that is not an object", code="invalid_response")
        return reply


class SerplyWebSearchTool(_SerplyTool):
    """Google web results: title, link and description of each."""

    name: str = "Google Search"
    description: str = "A tool to perform Google search with a search_query."
    args_schema: type[BaseModel] = SerplyWebSearchToolSchema
    search_url: str | None = Field(default=None, description="Full endpoint URL the query is appended to")
    hl: str = Field(default="us", description="Interface language of the results")
    limit: int = Field(default=10, ge=1, le=100, description="Most results")
    device_type: Literal["desktop", "mobile"] = "desktop"
    query_payload: dict[str, Any] = Field(default_factory=dict, description="Extra query parameters")

    def _target(self) -> str | None:
        return self.search_url

    def _run(self, search_query: str) -> str | ToolFailure:
        query = {"num": self.limit, "gl": self.proxy_location.upper(), "hl": self.hl.lower(), **self.query_payload}
        query["q"] = search_query
        reply = self._search(query, {"X-User-Agent": self.device_type})
        if isinstance(reply, ToolFailure):
            return reply
        rows = [
            [f"Title: {r['title']}", f"Link: {r['link']}", f"Description: {str(r['description']).strip()}"]
            for r in reply.get("results", [])
            if isinstance(r, dict) and {"title", "link", "description"} <= r.keys()
        ]
        return _blocks(rows)


class SerplyNewsSearchTool(_SerplyTool):
    """Google News articles: title, link, source and date of each."""

    name: str = "News Search"
    description: str = "A tool to perform News article search with a search_query."
    args_schema: type[BaseModel] = SerplyNewsSearchToolSchema
    search_url: str | None = Field(default=None, description="Full endpoint URL the query is appended to")
    limit: int = Field(default=10, ge=1, le=100, description="Most articles")
    _path: ClassVar[str] = "/v1/news/"

    def _target(self) -> str | None:
        return self.search_url

    def _run(self, search_query: str) -> str | ToolFailure:
        reply = self._search({"q": search_query})
        if isinstance(reply, ToolFailure):
            return reply
        rows = []
        for entry in reply.get("entries", [])[: self.limit]:
            source = entry.get("source")
            if not isinstance(entry, dict) or not {"title", "link", "published"} <= entry.keys():
                continue
            rows.append([
                f"Title: {entry['title']}",
                f"Link: {entry['link']}",
                f"Source: {source.get('title') if isinstance(source, dict) else source}",
                f"Published: {entry['published']}",
            ])
        return _blocks(rows)


class SerplyScholarSearchTool(_SerplyTool):
    """Google Scholar articles: title, link, description, citation and authors of each."""

    name: str = "Scholar Search"
    description: str = "A tool to perform scholarly literature search with a search_query."
    args_schema: type[BaseModel] = SerplyScholarSearchToolSchema
    search_url: str | None = Field(default=None, description="Full endpoint URL the query is appended to")
    hl: str = Field(default="us", description="Interface language of the results")
    _path: ClassVar[str] = "/v1/scholar/"

    def _target(self) -> str | None:
        return self.search_url

    def _run(self, search_query: str) -> str | ToolFailure:
        reply = self._search({"hl": self.hl, "q": search_query})
        if isinstance(reply, ToolFailure):
            return reply
        articles = reply.get("articles") or []
        if not articles:
            return ""
        rows = []
        for art in articles:
            try:
                link = art["doc"]["link"] if "doc" in art else art["link"]
                authors = ", ".join(a["name"] for a in art["author"]["authors"])
                rows.append([
                    f"Title: {art['title']}", f"Link: {link}", f"Description: {art['description']}",
                    f"Cite: {art['cite']}", f"Authors: {authors}",
                ])
            except (KeyError, TypeError):
                continue
        return _blocks(rows)


class SerplyJobSearchTool(_SerplyTool):
    """Job postings in the US: position, employer, location, link, highlights."""

    name: str = "Job Search"
    description: str = "A tool to perform to perform a job search in the US with a search_query."
    args_schema: type[BaseModel] = SerplyJobSearchToolSchema
    request_url: str | None = Field(default=None, description="Full endpoint URL the query is appended to")
    _path: ClassVar[str] = "/v1/job/search/"

    def _target(self) -> str | None:
        return self.request_url

    def _run(self, search_query: str) -> str | ToolFailure:
        reply = self._search({"q": search_query})
        if isinstance(reply, ToolFailure):
            return reply
        jobs = reply.get("jobs") or []
        if not jobs:
            return ""
        rows = []
        for job in jobs:
            try:
                rows.append([
                    f"Position: {job['position']}", f"Employer: {job['employer']}",
                    f"Location: {job['location']}", f"Link: {job['link']}",
                    f"Highest: {', '.join(job['highlights'])}",
                    f"Is Remote: {job['is_remote']}", f"Is Hybrid: {job.get('is_hybrid', job['is_remote'])}",
                ])
            except (KeyError, TypeError):
                continue
        return _blocks(rows)


class SerplyWebpageToMarkdownTool(_SerplyTool):
    """A web page fetched by Serply and converted to Markdown."""

    name: str = "Webpage to Markdown"
    description: str = "A tool to perform convert a webpage to markdown to make it easier for LLMs to understand"
    args_schema: type[BaseModel] = SerplyWebpageToMarkdownToolSchema
    request_url: str | None = Field(default=None, description="Full endpoint URL")

    def _run(self, url: str) -> str | ToolFailure:
        from crewgraph.toolkit._web import check_url

        bad = check_url(url)
        if bad is not None:
            return bad
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        return self._call_text(
            "POST",
            "/v1/request",
            url=self.request_url,
            headers=self._headers(key),
            json_body={"url": url, "method": "GET", "response_type": "markdown"},
        )
