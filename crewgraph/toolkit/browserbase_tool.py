"""BrowserbaseLoadTool: load a page through Browserbase (``BROWSERBASE_API_KEY``).

Uses Browserbase's Fetch API (``POST {base}/v1/fetch`` with the
``X-BB-API-Key`` header): Browserbase retrieves the page from its
infrastructure, through its proxies when ``proxy=True``, and answers with the
status code and content. ``text_content=True`` turns the HTML into readable
text. Fetch does not run JavaScript and needs no browser session, so
``session_id`` (an existing session, driven over CDP in CrewAI) is rejected.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, Field

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.toolkit._web import check_url, html_to_text, limit_text
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["BrowserbaseLoadTool", "BrowserbaseLoadToolSchema"]


class BrowserbaseLoadToolSchema(BaseModel):
    """Input for BrowserbaseLoadTool."""

    url: str = Field(..., description="Website URL")


class BrowserbaseLoadTool(HostedTool):
    """Page content via Browserbase: HTML, or text with ``text_content=True``."""

    name: str = "Browserbase web load tool"
    description: str = "Load webpages url in a headless browser using Browserbase and return the contents"
    args_schema: type[BaseModel] = BrowserbaseLoadToolSchema
    text_content: bool = Field(default=False, description="Return readable text instead of HTML")
    proxy: bool = Field(default=False, description="Route the request through Browserbase's proxies")
    max_chars: int = Field(default=50_000, ge=1, description="Longest content handed back")

    _service: ClassVar[str] = "Browserbase"
    _key_envs: ClassVar[tuple[str, ...]] = ("BROWSERBASE_API_KEY",)
    _base_env: ClassVar[str | None] = "BROWSERBASE_BASE_URL"
    _default_base: ClassVar[str] = "https://api.browserbase.com"
    _unsupported: ClassVar[dict[str, str]] = {
        "session_id": "pages are loaded with Browserbase's Fetch API, which uses no browser session",
        "project_id": "Browserbase's Fetch API is keyed by the API key alone (BROWSERBASE_API_KEY)",
    }

    def _run(self, url: str) -> str | ToolFailure:
        bad = check_url(url)
        if bad is not None:
            return bad
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        body: dict[str, Any] = {"url": url.strip(), "allowRedirects": True, "proxies": self.proxy}
        reply = self._call("POST", "/v1/fetch", headers={"X-BB-API-Key": key}, json_body=body)
        if isinstance(reply, ToolFailure):
            return reply
        if not isinstance(reply, dict):
            return ToolFailure(message="Browserbase answered with something that is not an object", code="invalid_response")
        status = int(reply.get("statusCode") or 0)
        if status >= 400:
            return ToolFailure(
                message=f"Browserbase fetched {url}, which answered HTTP {status}",
                code=f"http_{status}",
                retryable=status in (429, 502, 503, 504),
            )
        content = str(reply.get("content") or "")
        kind = str(reply.get("contentType") or "")
        if self.text_content and ("html" in kind or not kind):
            content = html_to_text(content)
        return limit_text(content, self.max_chars)
