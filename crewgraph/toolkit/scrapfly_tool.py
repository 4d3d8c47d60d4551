"""ScrapflyScrapeWebsiteTool: a page as Markdown, text or raw HTML through Scrapfly (``SCRAPFLY_API_KEY``).

``GET {base}/scrape?key=...&url=...&format=markdown`` plus ``scrape_config``
as query parameters (``asp``, ``render_js``, ``country``, ``proxy_pool``...;
booleans as ``true``/``false``), as Scrapfly's API documents (its SDK sends
the same; it is not needed). The result is the reply's ``result.content``.
With ``ignore_scrape_failures`` a failed scrape answers a short note instead
of a failure. ``base_url=`` or ``SCRAPFLY_BASE_URL`` moves the API (default
``https://api.scrapfly.io``).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.toolkit._web import check_url
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["ScrapflyScrapeWebsiteTool", "ScrapflyScrapeWebsiteToolSchema"]


class ScrapflyScrapeWebsiteToolSchema(BaseModel):
    """Input for ScrapflyScrapeWebsiteTool."""

    url: str = Field(description="Webpage URL")
    scrape_format: Literal["raw", "markdown", "text"] | None = Field(default="markdown", description="Webpage extraction format")
    scrape_config: dict[str, Any] | None = Field(default=None, description="Scrapfly request scrape config")
    ignore_scrape_failures: bool | None = Field(default=None, description="whether to ignore failures")


def _param(value: Any) -> Any:
    return ("true" if value else "false") if isinstance(value, bool) else value


class ScrapflyScrapeWebsiteTool(HostedTool):
    """Scrapes a page through Scrapfly's proxies (anti-bot, JavaScript rendering on request)."""

    name: str = "Scrapfly web scraping API tool"
    description: str = "Scrape a webpage url using Scrapfly and return its content as markdown or text"
    args_schema: type[BaseModel] = ScrapflyScrapeWebsiteToolSchema
    timeout: float = Field(default=150.0, gt=0, description="Seconds allowed for the request")

    _service: ClassVar[str] = "Scrapfly"
    _key_envs: ClassVar[tuple[str, ...]] = ("SCRAPFLY_API_KEY",)
    _base_env: ClassVar[str | None] = "SCRAPFLY_BASE_URL"
    _default_base: ClassVar[str] = "https://api.scrapfly.io"
    _unsupported: ClassVar[dict[str, str]] = {
        "scrapfly": "the tool calls Scrapfly's HTTP API itself; pass api_key=/base_url= instead of a client",
    }

    def _run(
        self,
        url: str,
        scrape_format: Literal["raw", "markdown", "text"] | None = "markdown",
        scrape_config: dict[str, Any] | None = None,
        ignore_scrape_failures: bool | None = None,
    ) -> str | ToolFailure:
        bad = check_url(url)
        if bad is not None:
            return bad
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        params = {k: _param(v) for k, v in (scrape_config or {}).items()}
        params.update({"key": key, "url": url, "format": scrape_format or "markdown"})
        reply = self._call("GET", "/scrape", params=params)
        content = (reply.get("result") or {}).get("content") if isinstance(reply, dict) else None
        failure = reply if isinstance(reply, ToolFailure) else None
        if failure is None and not isinstance(content, str):
            failure = ToolFailure(message=f"Scrapfly's reply for {url} has no result.content", code="invalid_response")
        if failure is not None:
            if ignore_scrape_failures:
                return f"Could not scrape {url} (failure ignored): {failure.message}"
            return failure
        return str(content)
