"""The Oxylabs tools: any URL, Google search, Amazon products and searches via Oxylabs' Web Scraper API.

Each is one ``POST {base}/v1/queries`` (the Realtime integration) with HTTP
basic auth (``OXYLABS_USERNAME``/``OXYLABS_PASSWORD``, or ``username=``/
``password=``) and ``{"source": "universal" | "google_search" |
"amazon_product" | "amazon_search", "url" | "query", ...config}``, as
Oxylabs documents (its ``oxylabs`` SDK sends the same; it is not needed).
The tool answers the first result's ``content`` (parsed results as JSON);
an empty reply or a target status outside 2xx is a ToolFailure saying so.
``base_url=`` or ``OXYLABS_BASE_URL`` moves the API (default
``https://realtime.oxylabs.io``).
"""

from __future__ import annotations

import base64
import json
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from crewgraph.toolkit._hosted import HostedTool, first_env
from crewgraph.tools.tool_failure import ToolFailure

__all__ = [
    "OxylabsAmazonProductScraperConfig",
    "OxylabsAmazonProductScraperTool",
    "OxylabsAmazonSearchScraperConfig",
    "OxylabsAmazonSearchScraperTool",
    "OxylabsGoogleSearchScraperConfig",
    "OxylabsGoogleSearchScraperTool",
    "OxylabsUniversalScraperConfig",
    "OxylabsUniversalScraperTool",
]


class _Common(BaseModel):
    model_config = ConfigDict(extra="forbid")  # an option Oxylabs does not know is named, not silently sent

    geo_location: str | None = Field(None, description="The Deliver to location.")
    user_agent_type: str | None = Field(None, description="Device type and browser.")
    render: str | None = Field(None, description="Enables JavaScript rendering.")
    callback_url: str | None = Field(None, description="URL to your callback endpoint.")
    context: list[Any] | None = Field(None, description="Additional advanced settings.")
    parse: bool | None = Field(None, description="True will return structured data.")
    parsing_instructions: dict[str, Any] | None = Field(None, description="Instructions for parsing the results.")


class OxylabsUniversalScraperConfig(_Common):
    """Options of the universal source (any website)."""


class OxylabsGoogleSearchScraperConfig(_Common):
    """Options of the google_search source."""

    domain: str | None = Field(None, description="The domain to limit the search results to.")
    start_page: int | None = Field(None, description="The starting page number.")
    pages: int | None = Field(None, description="The number of pages to scrape.")
    limit: int | None = Field(None, description="Results per page.")
    locale: str | None = Field(None, description="Accept-Language header value.")


class OxylabsAmazonProductScraperConfig(_Common):
    """Options of the amazon_product source."""

    domain: str | None = Field(None, description="The Amazon domain (com, de, co.uk...).")


class OxylabsAmazonSearchScraperConfig(_Common):
    """Options of the amazon_search source."""

    domain: str | None = Field(None, description="The Amazon domain (com, de, co.uk...).")
    start_page: int | None = Field(None, description="The starting page number.")
    pages: int | None = Field(None, description="The number of pages to scrape.")


class OxylabsUniversalScraperArgs(BaseModel):
    """Input for OxylabsUniversalScraperTool."""

    url: str = Field(description="Website URL")


class OxylabsQueryArgs(BaseModel):
    """Input for the Oxylabs search and product tools."""

    query: str = Field(description="The search query, or the product's ASIN")


class _OxylabsTool(HostedTool):
    username: str | None = Field(default=None, description="Oxylabs username (else OXYLABS_USERNAME)")
    password: str | None = Field(default=None, repr=False, exclude=True, description="Oxylabs password (else OXYLABS_PASSWORD)")
    config: Any = None
    timeout: float = Field(default=180.0, gt=0, description="Seconds allowed for the request")

    _source: ClassVar[str] = "universal"
    _target: ClassVar[str] = "query"
    _config_model: ClassVar[type[BaseModel]] = OxylabsUniversalScraperConfig
    _service: ClassVar[str] = "Oxylabs"
    _key_envs: ClassVar[tuple[str, ...]] = ("OXYLABS_USERNAME",)
    _other_envs: ClassVar[tuple[str, ...]] = ("OXYLABS_PASSWORD",)
    _base_env: ClassVar[str | None] = "OXYLABS_BASE_URL"
    _default_base: ClassVar[str] = "https://realtime.oxylabs.io"
    _unsupported: ClassVar[dict[str, str]] = {
        "oxylabs_api": "the tool calls Oxylabs' HTTP API itself; pass username=/password= instead of a client",
    }

    @model_validator(mode="after")
    def _config_as_model(self) -> _OxylabsTool:
        if self.config is None:
            self.config = self._config_model()
        elif isinstance(self.config, dict):
            self.config = self._config_model.model_validate(self.config)
        elif not isinstance(self.config, self._config_model):
            raise ValueError(f"{type(self).__name__}(config=...) must be a {self._config_model.__name__} or a dict")
        return self

    def _credentials(self) -> tuple[str, str] | None:
        user = self.username or first_env("OXYLABS_USERNAME")
        password = self.password or first_env("OXYLABS_PASSWORD")
        return (user, password) if user and password else None

    def _key_hint(self) -> str:
        return "set OXYLABS_USERNAME and OXYLABS_PASSWORD or pass username=..., password=..."

    def config_problems(self) -> list[str]:
        if self._credentials() is None:
            return [f"{type(self).__name__} needs Oxylabs credentials: {self._key_hint()}"]
        return []

    def _scrape(self, target: str) -> str | ToolFailure:
        credentials = self._credentials()
        if credentials is None:
            return ToolFailure(message=f"{type(self).__name__} has no Oxylabs credentials: {self._key_hint()}",
                               code="missing_api_key")
        token = base64.b64encode(":".join(credentials).encode()).decode()
        body = {"source": self._source, self._target: target, **self.config.model_dump(exclude_none=True)}
        reply = self._call("POST", "/v1/queries", headers={"Authorization": f"Basic {token}"}, json_body=body)
        if isinstance(reply, ToolFailure):
            return reply
        results = reply.get("results") if isinstance(reply, dict) else None
        if not results:
            return ToolFailure(message="Oxylabs Web Scraper API returned no results.", code="empty_response")
        first = results[0]
        status = first.get("status_code")
        if isinstance(status, int) and not 200 <= status < 300:
            return ToolFailure(
                message=f"Oxylabs Web Scraper API could not retrieve the page: the target responded with status {status}.",
                code=str(status), retryable=status == 429 or status >= 500,
            )
        content = first.get("content")
        if content is None:
            return ToolFailure(message="Oxylabs Web Scraper API returned a result with no content.", code="empty_content")
        return content if isinstance(content, str) else json.dumps(content)


class OxylabsUniversalScraperTool(_OxylabsTool):
    """Any URL, scraped (optionally rendered and parsed) by Oxylabs."""

    name: str = "Oxylabs Universal Scraper tool"
    description: str = "Scrape any url with Oxylabs Universal Scraper"
    args_schema: type[BaseModel] = OxylabsUniversalScraperArgs
    _target: ClassVar[str] = "url"

    def _run(self, url: str) -> str | ToolFailure:
        return self._scrape(url)


class OxylabsGoogleSearchScraperTool(_OxylabsTool):
    """Google search results, scraped by Oxylabs."""

    name: str = "Oxylabs Google Search Scraper tool"
    description: str = "Scrape Google Search results with Oxylabs Google Search Scraper"
    args_schema: type[BaseModel] = OxylabsQueryArgs
    _source: ClassVar[str] = "google_search"
    _config_model: ClassVar[type[BaseModel]] = OxylabsGoogleSearchScraperConfig

    def _run(self, query: str) -> str | ToolFailure:
        return self._scrape(query)


class OxylabsAmazonProductScraperTool(_OxylabsTool):
    """An Amazon product page (by ASIN), scraped by Oxylabs."""

    name: str = "Oxylabs Amazon Product Scraper tool"
    description: str = "Scrape Amazon product pages with Oxylabs Amazon Product Scraper"
    args_schema: type[BaseModel] = OxylabsQueryArgs
    _source: ClassVar[str] = "amazon_product"
    _config_model: ClassVar[type[BaseModel]] = OxylabsAmazonProductScraperConfig

    def _run(self, query: str) -> str | ToolFailure:
        return self._scrape(query)


class OxylabsAmazonSearchScraperTool(_OxylabsTool):
    """Amazon search results, scraped by Oxylabs."""

    name: str = "Oxylabs Amazon Search Scraper tool"
    description: str = "Scrape Amazon search results with Oxylabs Amazon Search Scraper"
    args_schema: type[BaseModel] = OxylabsQueryArgs
    _source: ClassVar[str] = "amazon_search"
    _config_model: ClassVar[type[BaseModel]] = OxylabsAmazonSearchScraperConfig

    def _run(self, query: str) -> str | ToolFailure:
        return self._scrape(query)
