"""WebsiteSearchTool and CodeDocsSearchTool: fetch pages once, then search them locally.

A page is fetched with the scrape tools' bounded fetch (timeout, size cap),
turned into text, and indexed in the same Qdrant RAG index as the file search
tools (embedded once per content); searches after that are local. The tool
keeps the document ids of the URLs it has read, so asking about the same site
again does not fetch it again. ``CodeDocsSearchTool`` also follows the links
of the documentation page that stay under its address (breadth first, at most
``max_pages`` pages), since documentation is spread over many pages.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import ClassVar
from urllib.parse import urldefrag, urljoin, urlsplit

from pydantic import BaseModel, Field, PrivateAttr

from crewgraph._internal.extras import import_extra
from crewgraph.toolkit._web import fetch_page, html_to_text
from crewgraph.toolkit.rag_tools import _RagBase, _schema
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["CodeDocsSearchTool", "WebsiteSearchTool", "page_links"]


def page_links(html: str, base_url: str) -> list[str]:
    """Absolute http(s) links of a page, fragments removed, in page order, without repeats."""
    lexbor = import_extra("selectolax.lexbor", "tools", "Reading web pages")
    seen: dict[str, None] = {}
    for node in lexbor.LexborHTMLParser(html).css("a[href]"):
        href = (node.attributes.get("href") or "").strip()
        if not href or href.startswith(("mailto:", "javascript:", "tel:")):
            continue
        url = urldefrag(urljoin(base_url, href))[0]
        if urlsplit(url).scheme in ("http", "https"):
            seen.setdefault(url, None)
    return list(seen)


class _WebRagTool(_RagBase):
    requires_extras: ClassVar[tuple[tuple[str, str], ...]] = (("selectolax", "tools"),)
    timeout: float = Field(default=15.0, gt=0, description="Seconds allowed per page")
    max_bytes: int = Field(default=5_000_000, ge=1, description="Most bytes downloaded per page")
    headers: dict[str, str] = Field(default_factory=dict, description="Extra request headers")

    _read: dict[str, list[str]] = PrivateAttr(default_factory=dict)
    """Document ids per start URL already read."""

    def _search(self, query: str, doc_ids: list[str]) -> str:
        hits = self._hits(query, doc_ids)
        if not hits:
            return "No relevant content found."
        return "Relevant Content:\n" + "\n\n".join(f"[{h.source}]\n{h.content}" for h in hits)

    async def _read_page(self, url: str) -> tuple[str, str, str] | ToolFailure:
        """(final URL, raw body, text) of one page."""
        page = await fetch_page(url, timeout=self.timeout, max_bytes=self.max_bytes, headers=self.headers)
        if isinstance(page, ToolFailure):
            return page
        text = html_to_text(page.body) if page.is_html else page.body.strip()
        return page.url, page.body if page.is_html else "", text

    async def _index_text(self, text: str, source: str) -> str:
        index = self._get_index()
        return await asyncio.to_thread(index.add_text, text, source, self.chunk_size, self.chunk_overlap)

    async def _search_async(self, query: str, doc_ids: list[str]) -> str:
        return await asyncio.to_thread(self._search, query, doc_ids)


class WebsiteSearchTool(_WebRagTool):
    """Semantic search in one web page (``website`` fixed at construction, or given per call)."""

    _field: ClassVar[str] = "website"
    name: str = "Search in a specific website"
    description: str = "A tool that can be used to semantic search a query from a specific URL content."
    args_schema: type[BaseModel] = _schema("WebsiteSearchToolSchema", "website", "Mandatory valid website URL you want to search on")
    website: str | None = Field(default=None, description="Fixed website to search (set at construction)")

    def _fixed_description(self, fixed: str) -> str:
        return f"A tool that can be used to semantic search a query the {fixed} website content."

    async def _run(self, search_query: str, website: str | None = None) -> str | ToolFailure:
        url = (website or self.website or "").strip()
        if not url:
            return ToolFailure(message="No website given: say which URL to search.", code="missing_url")
        docs = self._read.get(url)
        if docs is None:
            page = await self._read_page(url)
            if isinstance(page, ToolFailure):
                return page
            final_url, _html, text = page
            if not text:
                return ToolFailure(message=f"{final_url} has no readable text.", code="empty_page")
            docs = self._read[url] = [await self._index_text(text, final_url)]
        return await self._search_async(search_query, docs)


class CodeDocsSearchTool(_WebRagTool):
    """Semantic search in a documentation site: the page at ``docs_url`` and the pages under it."""

    _field: ClassVar[str] = "docs_url"
    name: str = "Search a Code Docs content"
    description: str = "A tool that can be used to semantic search a query from a Code Docs content."
    args_schema: type[BaseModel] = _schema("CodeDocsSearchToolSchema", "docs_url", "Mandatory docs_url path you want to search")
    docs_url: str | None = Field(default=None, description="Fixed documentation URL (set at construction)")
    max_pages: int = Field(default=20, ge=1, le=500, description="Most pages read under docs_url")

    def _fixed_description(self, fixed: str) -> str:
        return f"A tool that can be used to semantic search a query the {fixed} Code Docs content."

    async def _run(self, search_query: str, docs_url: str | None = None) -> str | ToolFailure:
        start = (docs_url or self.docs_url or "").strip()
        if not start:
            return ToolFailure(message="No docs_url given: say which documentation to search.", code="missing_url")
        docs = self._read.get(start)
        if docs is None:
            crawled = await self._crawl(start)
            if isinstance(crawled, ToolFailure):
                return crawled
            docs = self._read[start] = crawled
        return await self._search_async(search_query, docs)

    async def _crawl(self, start: str) -> list[str] | ToolFailure:
        parts = urlsplit(start)
        prefix = f"{parts.scheme}://{parts.netloc}{parts.path.rsplit('/', 1)[0]}/"
        queue: deque[str] = deque([start])
        seen = {start}
        docs: list[str] = []
        first_failure: ToolFailure | None = None
        while queue and len(seen) - len(queue) < self.max_pages:
            url = queue.popleft()
            page = await self._read_page(url)
            if isinstance(page, ToolFailure):
                first_failure = first_failure or page
                continue
            final_url, html, text = page
            if text:
                docs.append(await self._index_text(text, final_url))
            for link in page_links(html, final_url) if html else []:
                if link.startswith(prefix) and link not in seen and len(seen) < self.max_pages:
                    seen.add(link)
                    queue.append(link)
        if not docs:
            return first_failure or ToolFailure(message=f"No readable documentation at {start}.", code="empty_page")
        return docs
