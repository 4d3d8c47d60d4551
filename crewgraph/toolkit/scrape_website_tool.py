"""Scrape tools: the readable text of a web page, or of the elements a CSS selector picks.

Only http(s) URLs are fetched, with a timeout and a download size limit;
HTTP errors come back as failures the model can read (and that 429/5xx are
retried by the tool node).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, Field

from crewgraph.toolkit._web import element_texts, fetch_page, html_to_text, limit_text
from crewgraph.tools._schema import narrow_schema
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = [
    "ScrapeElementFromWebsiteTool",
    "ScrapeElementFromWebsiteToolSchema",
    "ScrapeWebsiteTool",
    "ScrapeWebsiteToolSchema",
]


class ScrapeWebsiteToolSchema(BaseModel):
    """Input for ScrapeWebsiteTool."""

    website_url: str = Field(..., description="Absolute http(s) URL of the page to read")


class ScrapeElementFromWebsiteToolSchema(BaseModel):
    """Input for ScrapeElementFromWebsiteTool."""

    website_url: str = Field(..., description="Absolute http(s) URL of the page")
    css_element: str = Field(..., description="CSS selector of the elements to extract")


class _WebTool(BaseTool):
    """Shared fetch settings of the scrape tools."""

    requires_extras: ClassVar[tuple[tuple[str, str], ...]] = (("selectolax", "tools"),)

    website_url: str | None = Field(default=None, description="Fixed URL (set at construction)")
    timeout: float = Field(default=15.0, gt=0, description="Seconds allowed for the request")
    max_bytes: int = Field(default=5_000_000, ge=1, description="Most bytes downloaded")
    max_chars: int = Field(default=50_000, ge=1, description="Longest text handed back")
    headers: dict[str, str] = Field(default_factory=dict, description="Extra request headers")
    cookies: dict[str, str] | None = Field(default=None, description="Cookies sent with the request (name -> value)")

    def _request_headers(self) -> dict[str, str]:
        sent = dict(self.headers)
        if self.cookies:
            jar = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
            sent["Cookie"] = f"{sent['Cookie']}; {jar}" if sent.get("Cookie") else jar
        return sent


class ScrapeWebsiteTool(_WebTool):
    """Reads a whole page as text (scripts and styles removed, whitespace collapsed)."""

    name: str = "Read website content"
    description: str = "A tool that can be used to read a website content."
    args_schema: type[BaseModel] = ScrapeWebsiteToolSchema

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        if self.website_url is not None:
            self.args_schema = narrow_schema(self.args_schema, {"website_url"}, self.name)
            self.description = f"A tool that can be used to read {self.website_url}'s content."

    async def _run(self, website_url: str | None = None) -> str | ToolFailure:
        url = website_url or self.website_url
        if not url:
            return ToolFailure(message="No website_url given: say which page to read.", code="missing_url")
        page = await fetch_page(url, timeout=self.timeout, max_bytes=self.max_bytes, headers=self._request_headers())
        if isinstance(page, ToolFailure):
            return page
        text = html_to_text(page.body) if page.is_html else page.body.strip()
        return limit_text(text, self.max_chars, page.truncated)


class ScrapeElementFromWebsiteTool(_WebTool):
    """Reads the text of the elements matching a CSS selector, one block per element."""

    name: str = "Read a website content"
    description: str = "A tool that can be used to read a website content, selecting elements by CSS."
    args_schema: type[BaseModel] = ScrapeElementFromWebsiteToolSchema
    css_element: str | None = Field(default=None, description="Fixed CSS selector (set at construction)")

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        fixed = {n for n in ("website_url", "css_element") if getattr(self, n) is not None}
        if fixed:
            self.args_schema = narrow_schema(self.args_schema, fixed, self.name)
        if self.website_url is not None:
            self.description = f"A tool that can be used to read {self.website_url}'s content."

    async def _run(
        self, website_url: str | None = None, css_element: str | None = None
    ) -> str | ToolFailure:
        url = website_url or self.website_url
        selector = css_element or self.css_element
        if not url or not selector:
            missing = "website_url" if not url else "css_element"
            return ToolFailure(message=f"No {missing} given.", code=f"missing_{missing}")
        page = await fetch_page(url, timeout=self.timeout, max_bytes=self.max_bytes, headers=self._request_headers())
        if isinstance(page, ToolFailure):
            return page
        texts = element_texts(page.body, selector)
        if isinstance(texts, ToolFailure):
            return texts
        if not texts:
            return f"No elements matching {selector!r} were found on {page.url}."
        return limit_text("\n\n".join(texts), self.max_chars, page.truncated)
