"""HyperbrowserLoadTool: scrape a page or crawl a site with Hyperbrowser's cloud browsers (``HYPERBROWSER_API_KEY``).

A job is started with ``POST {base}/api/scrape`` or ``POST {base}/api/crawl``
(the ``x-api-key`` header; ``{"url", ...params}`` with the SDK's snake_case
option names turned into the API's camelCase: ``scrape_options`` ->
``scrapeOptions``, ``max_pages`` -> ``maxPages``), then polled with ``GET
/api/{scrape|crawl}/{jobId}`` until it completes, fails or ``max_wait``
passes, as Hyperbrowser's API documents (its SDK does the same; it is not
needed). A scrape answers the page's Markdown (or HTML); a crawl answers
each page as ``Url: ... Content: ...`` blocks, as in CrewAI. ``base_url=``
or ``HYPERBROWSER_BASE_URL`` moves the API (default
``https://app.hyperbrowser.ai``).
"""

from __future__ import annotations

import time
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.toolkit._web import check_url
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["HyperbrowserLoadTool", "HyperbrowserLoadToolSchema"]


class HyperbrowserLoadToolSchema(BaseModel):
    """Input for HyperbrowserLoadTool."""

    url: str = Field(description="Website URL")
    operation: Literal["scrape", "crawl"] = Field(description="Operation to perform on the website: 'scrape' or 'crawl'")
    params: dict[str, Any] | None = Field(
        description="Optional params for the scrape or crawl (scrape_options, session_options, max_pages...)"
    )


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _api_case(value: Any) -> Any:
    if isinstance(value, dict):
        return {_camel(k): _api_case(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_api_case(v) for v in value]
    return value


def _content(page: Any) -> str:
    return str(page.get("markdown") or page.get("html") or "") if isinstance(page, dict) else ""


class HyperbrowserLoadTool(HostedTool):
    """Markdown of one page (scrape) or of the pages of a site (crawl), from a real cloud browser."""

    name: str = "Hyperbrowser web load tool"
    description: str = (
        "Scrape or crawl a website using Hyperbrowser and return the contents in properly formatted markdown or html"
    )
    args_schema: type[BaseModel] = HyperbrowserLoadToolSchema
    poll_interval: float = Field(default=2.0, gt=0, description="Seconds between job status checks")
    max_wait: float = Field(default=300.0, gt=0, description="Most seconds to wait for the job")

    _service: ClassVar[str] = "Hyperbrowser"
    _key_envs: ClassVar[tuple[str, ...]] = ("HYPERBROWSER_API_KEY",)
    _base_env: ClassVar[str | None] = "HYPERBROWSER_BASE_URL"
    _default_base: ClassVar[str] = "https://app.hyperbrowser.ai"
    _unsupported: ClassVar[dict[str, str]] = {
        "hyperbrowser": "the tool calls Hyperbrowser's HTTP API itself; pass api_key=/base_url= instead of a client",
    }

    def _run(
        self, url: str, operation: Literal["scrape", "crawl"] = "scrape", params: dict[str, Any] | None = None
    ) -> str | ToolFailure:
        bad = check_url(url)
        if bad is not None:
            return bad
        formats = ((params or {}).get("scrape_options") or {}).get("formats") or []
        if any(f not in ("markdown", "html") for f in formats):
            return ToolFailure(message="scrape_options.formats can only contain 'markdown' or 'html'", code="invalid_params")
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        headers = {"x-api-key": key}
        started = self._call("POST", f"/api/{operation}", headers=headers, json_body={"url": url, **_api_case(params or {})})
        if isinstance(started, ToolFailure):
            return started
        job = started.get("jobId") if isinstance(started, dict) else None
        if not job:
            return ToolFailure(message=f"Hyperbrowser started no job: {started}", code="invalid_response")
        done = self._wait(operation, str(job), headers)
        if isinstance(done, ToolFailure):
            return done
        if operation == "scrape":
            return _content(done.get("data"))
        pages = done.get("data") or []
        return "".join(
            f"\n{'-' * 50}\nUrl: {page.get('url')}\nContent:\n{_content(page)}\n" for page in pages if _content(page)
        )

    def _wait(self, operation: str, job: str, headers: dict[str, str]) -> dict[str, Any] | ToolFailure:
        deadline = time.monotonic() + self.max_wait
        while True:
            status = self._call("GET", f"/api/{operation}/{job}", headers=headers)
            if isinstance(status, ToolFailure):
                return status
            if not isinstance(status, dict):
                return ToolFailure(message="Hyperbrowser answered with something that is not an object", code="invalid_response")
            state = status.get("status")
            if state == "completed":
                return status
            if state == "failed":
                return ToolFailure(message=f"The Hyperbrowser {operation} job {job} failed: {status.get('error')}",
                                   code=f"{operation}_failed")
            if time.monotonic() + self.poll_interval > deadline:
                return ToolFailure(message=f"The Hyperbrowser {operation} job {job} was still {state!r} after "
                                   f"{self.max_wait:g}s", code=f"{operation}_timeout")
            time.sleep(self.poll_interval)
