"""JinaScrapeWebsiteTool: a page as Markdown through Jina's Reader (``GET https://r.jina.ai/<url>``).

Jina's Reader needs no key (a key, ``api_key=`` or ``JINA_API_KEY``, raises
the rate limit and goes in ``Authorization: Bearer``). ``custom_headers``
adds Reader options (``X-Return-Format``, ``X-With-Links-Summary``...), as
Jina documents. ``base_url=`` or ``JINA_READER_URL`` moves the reader.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, Field, model_validator

from crewgraph.toolkit._hosted import HostedTool, first_env
from crewgraph.toolkit._web import check_url
from crewgraph.tools._schema import narrow_schema
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["JinaScrapeWebsiteTool", "JinaScrapeWebsiteToolInput"]


class JinaScrapeWebsiteToolInput(BaseModel):
    """Input for JinaScrapeWebsiteTool."""

    website_url: str = Field(..., description="Mandatory website url to read the file")


class JinaScrapeWebsiteTool(HostedTool):
    """Reads a page (its main content as Markdown) through Jina's Reader."""

    name: str = "JinaScrapeWebsiteTool"
    description: str = (
        "A tool that can be used to read a website content using Jina.ai reader and return markdown content."
    )
    args_schema: type[BaseModel] = JinaScrapeWebsiteToolInput
    website_url: str | None = Field(default=None, description="Fixed URL (set at construction)")
    custom_headers: dict[str, str] | None = Field(default=None, description="Extra Reader headers")
    timeout: float = Field(default=15.0, gt=0, description="Seconds allowed for the request")

    _service: ClassVar[str] = "Jina Reader"
    _base_env: ClassVar[str | None] = "JINA_READER_URL"
    _default_base: ClassVar[str] = "https://r.jina.ai"
    _other_envs: ClassVar[tuple[str, ...]] = ("JINA_API_KEY",)

    @model_validator(mode="before")
    @classmethod
    def _crewai_headers(cls, data: Any) -> Any:
        """CrewAI's ``headers=`` field: the same extra headers as ``custom_headers`` (the key still wins)."""
        if isinstance(data, dict) and "headers" in data:
            data = dict(data)
            headers = data.pop("headers") or {}
            data["custom_headers"] = {**dict(headers), **dict(data.get("custom_headers") or {})} or None
        return data

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        if self.website_url is not None:
            self.args_schema = narrow_schema(self.args_schema, {"website_url"}, self.name)
            self.description = f"A tool that can be used to read {self.website_url}'s content and return markdown content."

    @property
    def headers(self) -> dict[str, str]:
        """The headers sent: ``custom_headers`` and the key (CrewAI's ``headers``)."""
        sent = dict(self.custom_headers or {})
        key = self.api_key or first_env("JINA_API_KEY")
        if key:
            sent["Authorization"] = f"Bearer {key}"
        return sent

    def _run(self, website_url: str | None = None) -> str | ToolFailure:
        url = website_url or self.website_url
        if not url:
            return ToolFailure(message="No website_url given: say which page to read.", code="missing_url")
        bad = check_url(url)
        if bad is not None:
            return bad
        return self._call_text("GET", "/" + url.strip(), headers=self.headers)
