"""SpiderTool: scrape a page or crawl a site as Markdown with Spider (spider.cloud, ``SPIDER_API_KEY``).

``POST {base}/scrape`` or ``POST {base}/crawl`` with ``Authorization: Bearer``
and ``{"url", "request": "smart", "return_format": "markdown",
"filter_output_svg": true}`` (crawls add ``"limit": 5``), then
``custom_params`` on top, as CrewAI sends through Spider's client. The
reply, a list of pages (``content``, ``url``, ``status``...), is handed back
as Spider sends it. ``base_url=`` or ``SPIDER_BASE_URL`` moves the API
(default ``https://api.spider.cloud``).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.toolkit._web import check_url
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["SpiderTool", "SpiderToolConfig", "SpiderToolSchema"]


class SpiderToolSchema(BaseModel):
    """Input for SpiderTool."""

    website_url: str = Field(..., description="Mandatory website URL to scrape or crawl")
    mode: Literal["scrape", "crawl"] = Field(
        default="scrape",
        description="scrape (one page) or crawl (follows up to 5 links and returns their content as markdown)",
    )


class SpiderToolConfig(BaseModel):
    """The request defaults (CrewAI's ``SpiderToolConfig``)."""

    DEFAULT_CRAWL_LIMIT: int = 5
    DEFAULT_RETURN_FORMAT: str = "markdown"
    DEFAULT_REQUEST_MODE: str = "smart"
    FILTER_SVG: bool = True


class SpiderTool(HostedTool):
    """Scrapes one page or crawls a few; returns Spider's pages (content as Markdown)."""

    name: str = "SpiderTool"
    description: str = "A tool to scrape or crawl a website and return LLM-ready content."
    args_schema: type[BaseModel] = SpiderToolSchema
    website_url: str | None = Field(default=None, description="Default URL when the model gives none")
    custom_params: dict[str, Any] | None = Field(default=None, description="Spider parameters that override the defaults")
    log_failures: bool = Field(default=True, description="Kept for CrewAI; failures are always returned as ToolFailure")
    config: SpiderToolConfig = Field(default_factory=SpiderToolConfig)
    timeout: float = Field(default=120.0, gt=0, description="Seconds allowed for the request")

    _service: ClassVar[str] = "Spider"
    _key_envs: ClassVar[tuple[str, ...]] = ("SPIDER_API_KEY",)
    _base_env: ClassVar[str | None] = "SPIDER_BASE_URL"
    _default_base: ClassVar[str] = "https://api.spider.cloud"
    _unsupported: ClassVar[dict[str, str]] = {
        "spider": "the tool calls Spider's HTTP API itself; pass api_key=/base_url= instead of a client",
    }

    def _run(self, website_url: str = "", mode: Literal["scrape", "crawl"] = "scrape") -> Any:
        url = website_url or self.website_url
        if not url:
            return ToolFailure(message="No website_url given: say which site to read.", code="missing_url")
        bad = check_url(url)
        if bad is not None:
            return bad
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        body: dict[str, Any] = {
            "url": url.strip(),
            "request": self.config.DEFAULT_REQUEST_MODE,
            "filter_output_svg": self.config.FILTER_SVG,
            "return_format": self.config.DEFAULT_RETURN_FORMAT,
        }
        if mode == "crawl":
            body["limit"] = self.config.DEFAULT_CRAWL_LIMIT
        body.update(self.custom_params or {})
        return self._call("POST", f"/{mode}", headers={"Authorization": f"Bearer {key}"}, json_body=body)
