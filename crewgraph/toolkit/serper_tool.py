"""SerperDevTool and SerperScrapeWebsiteTool: Google results and page text from serper.dev (``SERPER_API_KEY``).

One ``POST {base}/{search_type}`` with ``{"q", "num", "gl", "location", "hl"}``
and the ``X-API-KEY`` header, as serper.dev documents. The reply's organic
results (and knowledge graph, "people also ask", related searches, or news
items for ``search_type="news"``) are handed back as a dict the model reads as
JSON; ``save_file=True`` also writes them to ``search_results_<time>.txt``.

``SerperScrapeWebsiteTool`` is ``POST https://scrape.serper.dev`` with
``{"url", "includeMarkdown"}``; it answers the page's ``text`` (CrewAI's
result). ``SERPER_SCRAPE_BASE_URL`` or ``base_url=`` moves it.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["SerperDevTool", "SerperDevToolSchema", "SerperScrapeWebsiteInput", "SerperScrapeWebsiteTool"]


class SerperDevToolSchema(BaseModel):
    """Input for SerperDevTool."""

    search_query: str = Field(..., description="Mandatory search query you want to use to search the internet")


def _organic(items: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    keep = ("title", "link", "snippet", "position", "date", "sitelinks")
    return [{k: item[k] for k in keep if k in item} for item in items[:limit]]


class SerperDevTool(HostedTool):
    """Search the internet (or news) with serper.dev; ``n_results`` results per query."""

    name: str = "Search the internet with Serper"
    description: str = (
        "A tool that can be used to search the internet with a search_query. "
        "Supports different search types: 'search' (default), 'news'"
    )
    args_schema: type[BaseModel] = SerperDevToolSchema
    search_url: str | None = Field(default=None, description="Full endpoint URL (overrides base_url and search_type)")
    n_results: int = Field(default=10, ge=1, le=100)
    save_file: bool = False
    search_type: Literal["search", "news"] = "search"
    country: str = ""
    location: str = ""
    locale: str = ""

    _service: ClassVar[str] = "Serper"
    _key_envs: ClassVar[tuple[str, ...]] = ("SERPER_API_KEY",)
    _base_env: ClassVar[str | None] = "SERPER_BASE_URL"
    _default_base: ClassVar[str] = "https://google.serper.dev"

    def _run(self, search_query: str) -> dict[str, Any] | ToolFailure:
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        search_type = self.search_type
        body: dict[str, Any] = {"q": search_query, "num": self.n_results}
        for field, value in (("gl", self.country), ("location", self.location), ("hl", self.locale)):
            if value:
                body[field] = value
        reply = self._call(
            "POST",
            f"/{search_type}",
            url=self.search_url,
            headers={"X-API-KEY": key, "Content-Type": "application/json"},
            json_body=body,
        )
        if isinstance(reply, ToolFailure):
            return reply
        if not isinstance(reply, dict):
            return ToolFailure(message=f"Serper answered with {type(reply).__name__}, not an object", code="invalid_response")
        results = self._results(reply, search_type)
        if self.save_file:
            stamp = _dt.datetime.now().strftime("%Y-%m-%d_%H-%M-%S")
            Path(f"search_results_{stamp}.txt").write_text(json.dumps(results, indent=2, ensure_ascii=False), encoding="utf-8")
        return results

    def _results(self, reply: dict[str, Any], search_type: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if "searchParameters" in reply:
            out["searchParameters"] = reply["searchParameters"]
        if search_type == "news":
            keep = ("title", "link", "snippet", "date", "source", "imageUrl")
            out["news"] = [{k: n[k] for k in keep if k in n} for n in reply.get("news", [])[: self.n_results]]
            return out
        if isinstance(reply.get("knowledgeGraph"), dict):
            out["knowledgeGraph"] = reply["knowledgeGraph"]
        out["organic"] = _organic(reply.get("organic", []), self.n_results)
        if reply.get("peopleAlsoAsk"):
            out["peopleAlsoAsk"] = reply["peopleAlsoAsk"][: self.n_results]
        if reply.get("relatedSearches"):
            out["relatedSearches"] = reply["relatedSearches"][: self.n_results]
        if reply.get("credits") is not None:
            out["credits"] = reply["credits"]
        return out


class SerperScrapeWebsiteInput(BaseModel):
    """Input for SerperScrapeWebsiteTool."""

    url: str = Field(..., description="The URL of the website to scrape")
    include_markdown: bool = Field(default=True, description="Whether to include markdown formatting in the scraped content")


class SerperScrapeWebsiteTool(HostedTool):
    """A page's readable content through Serper's scraping API."""

    name: str = "serper_scrape_website"
    description: str = (
        "Scrapes website content using Serper's scraping API. This tool can extract clean, readable content "
        "from any website URL, optionally including markdown formatting for better structure."
    )
    args_schema: type[BaseModel] = SerperScrapeWebsiteInput

    _service: ClassVar[str] = "Serper"
    _key_envs: ClassVar[tuple[str, ...]] = ("SERPER_API_KEY",)
    _base_env: ClassVar[str | None] = "SERPER_SCRAPE_BASE_URL"
    _default_base: ClassVar[str] = "https://scrape.serper.dev"

    def _run(self, url: str, include_markdown: bool = True) -> str | ToolFailure:
        from crewgraph.toolkit._web import check_url

        bad = check_url(url)
        if bad is not None:
            return bad
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        reply = self._call("POST", "", headers={"X-API-KEY": key}, json_body={"url": url, "includeMarkdown": include_markdown})
        if isinstance(reply, ToolFailure):
            return reply
        if isinstance(reply, dict) and "text" in reply:
            return str(reply["text"])
        return ToolFailure(message=f"Serper scraped {url} but its reply has no text: {str(reply)[:200]}", code="no_text")
