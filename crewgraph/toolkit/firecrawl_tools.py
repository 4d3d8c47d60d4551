"""Firecrawl tools: scrape a page, search the web, crawl a site, on Firecrawl's v2 HTTP API.

``FIRECRAWL_API_KEY`` (or ``api_key=``) goes in ``Authorization: Bearer``.
``config`` is merged into the request body, so every option Firecrawl
documents works; CrewAI's snake_case spellings (``only_main_content``) are
turned into the API's camelCase. A crawl is started with ``POST /v2/crawl``
and polled (``GET /v2/crawl/{id}``, following ``next`` pages) until it
completes, fails or ``max_wait`` seconds pass.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.toolkit._web import limit_text
from crewgraph.tools._schema import narrow_schema
from crewgraph.tools.tool_failure import ToolFailure

__all__ = [
    "FirecrawlCrawlWebsiteTool",
    "FirecrawlCrawlWebsiteToolSchema",
    "FirecrawlScrapeWebsiteTool",
    "FirecrawlScrapeWebsiteToolSchema",
    "FirecrawlSearchTool",
    "FirecrawlSearchToolSchema",
]


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _api_options(config: dict[str, Any] | None) -> dict[str, Any]:
    """``config`` with top-level snake_case keys in the API's camelCase."""
    return {(_camel(k) if "_" in k else k): v for k, v in (config or {}).items()}


def _page_text(doc: dict[str, Any]) -> str:
    return str(doc.get("markdown") or doc.get("summary") or doc.get("html") or doc.get("rawHtml") or "")


def _source(doc: dict[str, Any]) -> str:
    meta = doc.get("metadata") or {}
    return str(meta.get("sourceURL") or meta.get("url") or doc.get("url") or "")


class FirecrawlScrapeWebsiteToolSchema(BaseModel):
    """Input for FirecrawlScrapeWebsiteTool."""

    url: str = Field(..., description="Website URL")


class FirecrawlSearchToolSchema(BaseModel):
    """Input for FirecrawlSearchTool."""

    query: str = Field(..., description="Search query")


class FirecrawlCrawlWebsiteToolSchema(BaseModel):
    """Input for FirecrawlCrawlWebsiteTool."""

    url: str = Field(..., description="Website URL")


class _FirecrawlTool(HostedTool):
    config: dict[str, Any] | None = Field(default=None, description="Options merged into the request body")
    max_chars: int = Field(default=50_000, ge=1, description="Longest text handed back")

    _service: ClassVar[str] = "Firecrawl"
    _key_envs: ClassVar[tuple[str, ...]] = ("FIRECRAWL_API_KEY",)
    _base_env: ClassVar[str | None] = "FIRECRAWL_API_URL"
    _default_base: ClassVar[str] = "https://api.firecrawl.dev"
    _unsupported: ClassVar[dict[str, str]] = {
        "page_options": "Firecrawl's v0 options are gone from its API; put v2 options in config={...}",
        "crawler_options": "Firecrawl's v0 options are gone from its API; put v2 options in config={...}",
        "extractor_options": "Firecrawl's v0 options are gone from its API; put v2 options in config={...}",
    }

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any] | ToolFailure:
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        reply = self._call("POST", path, headers={"Authorization": f"Bearer {key}"}, json_body=body)
        return _checked(reply)


def _checked(reply: Any) -> dict[str, Any] | ToolFailure:
    if isinstance(reply, ToolFailure):
        return reply
    if not isinstance(reply, dict):
        return ToolFailure(message="Firecrawl answered with something that is not an object", code="invalid_response")
    if reply.get("success") is False:
        return ToolFailure(message=f"Firecrawl reported a failure: {reply.get('error') or reply}", code="firecrawl_error")
    return reply


class FirecrawlScrapeWebsiteTool(_FirecrawlTool):
    """One page as Markdown (``formats`` and other scrape options in ``config``)."""

    name: str = "Firecrawl web scrape tool"
    description: str = "Scrape webpages using Firecrawl and return the contents"
    args_schema: type[BaseModel] = FirecrawlScrapeWebsiteToolSchema
    url: str | None = Field(default=None, description="Fixed URL (set at construction)")

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        if self.url is not None:
            self.args_schema = narrow_schema(self.args_schema, {"url"}, self.name)
            self.description = f"Scrape {self.url} using Firecrawl and return its contents"

    def _run(self, url: str | None = None) -> str | ToolFailure:
        target = url or self.url
        if not target:
            return ToolFailure(message="No url given: say which page to scrape.", code="missing_url")
        body = {"url": target, "formats": ["markdown"], "onlyMainContent": True, **_api_options(self.config)}
        reply = self._post("/v2/scrape", body)
        if isinstance(reply, ToolFailure):
            return reply
        data = reply.get("data") or {}
        return limit_text(_page_text(data) if isinstance(data, dict) else str(data), self.max_chars)


class FirecrawlSearchTool(_FirecrawlTool):
    """Web search; each hit with its URL, title, description (and content if scraped)."""

    name: str = "Firecrawl web search tool"
    description: str = "Search webpages using Firecrawl and return the results"
    args_schema: type[BaseModel] = FirecrawlSearchToolSchema

    def _run(self, query: str) -> list[dict[str, Any]] | ToolFailure:
        body = {"query": query, "limit": 5, **_api_options(self.config)}
        reply = self._post("/v2/search", body)
        if isinstance(reply, ToolFailure):
            return reply
        data = reply.get("data")
        hits = data.get("web", []) if isinstance(data, dict) else data  # v2 groups by source; v1 is a list
        if not isinstance(hits, list):
            return ToolFailure(message="Firecrawl's search reply has no results list", code="invalid_response")
        keep = ("url", "title", "description", "position")
        out = []
        for hit in hits:
            if isinstance(hit, dict):
                row = {k: hit[k] for k in keep if k in hit}
                if hit.get("markdown"):
                    row["markdown"] = limit_text(str(hit["markdown"]), self.max_chars // max(1, len(hits)))
                out.append(row)
        return out


class FirecrawlCrawlWebsiteTool(_FirecrawlTool):
    """Crawl a site (``limit`` pages, options in ``config``); pages come back as Markdown."""

    name: str = "Firecrawl web crawl tool"
    description: str = "Crawl webpages using Firecrawl and return the contents"
    args_schema: type[BaseModel] = FirecrawlCrawlWebsiteToolSchema
    url: str | None = Field(default=None, description="Fixed start URL (set at construction)")
    poll_interval: float = Field(default=2.0, gt=0, description="Seconds between status checks")
    max_wait: float = Field(default=300.0, gt=0, description="Most seconds to wait for the crawl")

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        if self.url is not None:
            self.args_schema = narrow_schema(self.args_schema, {"url"}, self.name)
            self.description = f"Crawl {self.url} using Firecrawl and return the contents"

    def _run(self, url: str | None = None) -> str | ToolFailure:
        target = url or self.url
        if not target:
            return ToolFailure(message="No url given: say which site to crawl.", code="missing_url")
        options = _api_options(self.config)
        body = {"url": target, "limit": 10, "scrapeOptions": {"formats": ["markdown"], "onlyMainContent": True}, **options}
        started = self._post("/v2/crawl", body)
        if isinstance(started, ToolFailure):
            return started
        crawl_id = started.get("id")
        if not crawl_id:
            return ToolFailure(message="Firecrawl started no crawl (no 'id' in its reply)", code="invalid_response")
        docs = self._wait(str(crawl_id))
        if isinstance(docs, ToolFailure):
            return docs
        parts = [f"[{_source(d)}]\n{_page_text(d)}" for d in docs if isinstance(d, dict)]
        return limit_text("\n\n".join(parts) if parts else "The crawl returned no pages.", self.max_chars)

    def _wait(self, crawl_id: str) -> list[Any] | ToolFailure:
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        headers = {"Authorization": f"Bearer {key}"}
        deadline = time.monotonic() + self.max_wait
        while True:
            status = _checked(self._call("GET", f"/v2/crawl/{crawl_id}", headers=headers))
            if isinstance(status, ToolFailure):
                return status
            state = status.get("status")
            if state == "completed":
                docs = list(status.get("data") or [])
                next_url = status.get("next")
                while next_url:
                    page = _checked(self._call("GET", "", url=str(next_url), headers=headers))
                    if isinstance(page, ToolFailure):
                        return page
                    docs.extend(page.get("data") or [])
                    next_url = page.get("next")
                return docs
            if state in ("failed", "cancelled"):
                return ToolFailure(message=f"The Firecrawl crawl {crawl_id} {state}", code=f"crawl_{state}")
            if time.monotonic() + self.poll_interval > deadline:
                return ToolFailure(
                    message=f"The Firecrawl crawl {crawl_id} was still {state!r} after {self.max_wait:g}s",
                    code="crawl_timeout",
                    retryable=False,
                )
            time.sleep(self.poll_interval)
