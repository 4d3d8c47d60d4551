"""ScrapegraphScrapeTool: AI extraction from a page with ScrapeGraphAI's SmartScraper (``SCRAPEGRAPH_API_KEY``).

``POST {base}/v1/smartscraper`` with the ``SGAI-APIKEY`` header and
``{"website_url", "user_prompt"}``, as ScrapeGraphAI documents (its
``scrapegraph-py`` client sends the same; it is not needed). The reply
(``request_id``, ``status``, ``result``...) comes back as a dict, as the
client returns it to CrewAI's tool. ``base_url=`` or ``SCRAPEGRAPH_BASE_URL``
moves the API (default ``https://api.scrapegraphai.com``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, Field, field_validator

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.toolkit._web import check_url
from crewgraph.tools._schema import narrow_schema
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["ScrapegraphScrapeTool", "ScrapegraphScrapeToolSchema"]

_DEFAULT_PROMPT = "Extract the main content of the webpage"


class ScrapegraphScrapeToolSchema(BaseModel):
    """Input for ScrapegraphScrapeTool."""

    website_url: str = Field(..., description="Mandatory website url to scrape")
    user_prompt: str = Field(default=_DEFAULT_PROMPT, description="Prompt to guide the extraction of content")

    @field_validator("website_url")
    @classmethod
    def _url(cls, value: str) -> str:
        if check_url(value) is not None:
            raise ValueError("Invalid URL format. URL must include scheme (http/https) and domain")
        return value


class ScrapegraphScrapeTool(HostedTool):
    """What a prompt asks for, extracted from a page by ScrapeGraphAI."""

    name: str = "Scrapegraph website scraper"
    description: str = "A tool that uses Scrapegraph AI to intelligently scrape website content."
    args_schema: type[BaseModel] = ScrapegraphScrapeToolSchema
    website_url: str | None = Field(default=None, description="Fixed URL (set at construction)")
    user_prompt: str | None = Field(default=None, description="Default extraction prompt")
    enable_logging: bool = Field(default=False, description="Kept for CrewAI; requests are logged by crewgraph's tracing")
    timeout: float = Field(default=120.0, gt=0, description="Seconds allowed for the request")

    _service: ClassVar[str] = "ScrapeGraphAI"
    _key_envs: ClassVar[tuple[str, ...]] = ("SCRAPEGRAPH_API_KEY",)
    _base_env: ClassVar[str | None] = "SCRAPEGRAPH_BASE_URL"
    _default_base: ClassVar[str] = "https://api.scrapegraphai.com"

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        if self.website_url is not None:
            bad = check_url(self.website_url)
            if bad is not None:
                raise ValueError(bad.message)
            self.args_schema = narrow_schema(self.args_schema, {"website_url"}, self.name)
            self.description = f"A tool that uses Scrapegraph AI to intelligently scrape {self.website_url}'s content."

    def validate_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Only the arguments given, so ``user_prompt`` set on the tool is not replaced by the schema's default."""
        validated = self.args_schema.model_validate(arguments)
        return {name: getattr(validated, name) for name in validated.model_fields_set}

    def _run(self, website_url: str | None = None, user_prompt: str | None = None) -> Any:
        url = website_url or self.website_url
        if not url:
            return ToolFailure(message="No website_url given: say which page to scrape.", code="missing_url")
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        prompt = user_prompt or self.user_prompt or _DEFAULT_PROMPT
        reply = self._call("POST", "/v1/smartscraper", headers={"SGAI-APIKEY": key},
                           json_body={"website_url": url, "user_prompt": prompt})
        if isinstance(reply, ToolFailure):
            return reply
        if not isinstance(reply, dict) or not reply:
            return ToolFailure(message="Empty response from Scrapegraph API", code="invalid_response")
        if reply.get("error"):
            error = reply["error"]
            text = error.get("message", error) if isinstance(error, dict) else error
            return ToolFailure(message=f"Scrapegraph API error: {text}", code="scrapegraph_error",
                               retryable="rate limit" in str(text).lower())
        return reply
