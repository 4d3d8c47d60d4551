"""The Brave Search tools: web, news, image, video, local places, and LLM context (``BRAVE_API_KEY``).

Every tool is one ``GET {base}/{endpoint}`` of Brave's Search API with the
key in ``X-Subscription-Token``, the arguments as query parameters (a list
of goggles as repeated ``goggles=``, ``result_filter`` comma-joined), as
Brave documents. ``base_url=`` or ``BRAVE_BASE_URL`` moves the API (default
``https://api.search.brave.com/res/v1``); ``search_url=`` replaces one tool's
whole endpoint, as CrewAI's option does.

The reply is trimmed to what CrewAI's tools hand back (``raw=True`` returns
it whole): web hits as ``{url, title, snippets}``, news and videos as
``{url, title, description}``, images as ``{title, url, dimensions}``, places
with their address, contact and opening hours, LLM context as Brave sends it.
``n_results`` and ``country`` fill ``count``/``country`` when the model leaves
them out; ``requests_per_second`` spaces calls (Brave's free plan allows 1).
"""

from __future__ import annotations

import threading
import time
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, Field, StringConstraints, model_validator

from crewgraph.toolkit._hosted import HostedTool, save_results
from crewgraph.tools.tool_failure import ToolFailure

__all__ = [
    "BraveImageSearchTool",
    "BraveLLMContextTool",
    "BraveLocalPOIsDescriptionTool",
    "BraveLocalPOIsTool",
    "BraveNewsSearchTool",
    "BraveSearchTool",
    "BraveVideoSearchTool",
    "BraveWebSearchTool",
    "ImageSearchParams",
    "LLMContextParams",
    "LocalPOIsDescriptionParams",
    "LocalPOIsParams",
    "NewsSearchParams",
    "VideoSearchParams",
    "WebSearchParams",
]

Freshness = Literal["pd", "pw", "pm", "py"] | Annotated[
    str, StringConstraints(pattern=r"^\d{4}-\d{2}-\d{2}to\d{4}-\d{2}-\d{2}$")
]
SafeSearch = Literal["off", "moderate", "strict"]
Units = Literal["metric", "imperial"]
ResultType = Literal["discussions", "faq", "infobox", "news", "query", "summarizer", "videos", "web", "locations"]

_Q = Field(..., min_length=1, max_length=400, description="Search query to perform")
_COUNTRY = Field(default=None, pattern=r"^[A-Z]{2}$", description="Country code for geo-targeting (e.g. 'US', 'BR')")
_LANG = Field(default=None, pattern=r"^[a-z]{2}$", description="Language code of the results (e.g. 'en', 'es')")
_UI_LANG = Field(default=None, pattern=r"^[a-z]{2}-[A-Z]{2}$", description="Interface language (e.g. 'en-US')")
_OFFSET = Field(default=None, ge=0, le=9, description="Skip the first N result pages (at most 9)")
_SPELL = Field(default=None, description="Correct spelling errors in the query")
_FRESH = Field(default=None, description="Freshness: pd/pw/pm/py, or YYYY-MM-DDtoYYYY-MM-DD")
_GOGGLES = Field(default=None, description="Goggles (custom re-ranking): goggle source or URLs")
_META = Field(default=None, description="Include fetch metadata (e.g. last fetch time)")
_OPS = Field(default=None, description="Apply search operators (e.g. site:example.com)")
_SNIPPETS = Field(default=None, description="Up to 5 extra text snippets per page")
_IDS = Field(..., min_length=1, max_length=20, description="POI ids to retrieve (at most 20; valid 8 hours)")


class _Params(BaseModel):
    """Drops the placeholders models put in optional fields ("", "null", []), as CrewAI does."""

    @model_validator(mode="before")
    @classmethod
    def _drop_placeholders(cls, data: Any) -> Any:
        if isinstance(data, dict):
            fields = cls.model_fields
            return {
                k: v for k, v in data.items()
                if not (k in fields and not fields[k].is_required() and v in ("", "null", []))
            }
        return data


class WebSearchParams(_Params):
    """Input for BraveWebSearchTool and BraveSearchTool."""

    q: str = _Q
    country: str | None = _COUNTRY
    search_lang: str | None = _LANG
    ui_lang: str | None = _UI_LANG
    count: int | None = Field(default=None, ge=1, le=20, description="Most results (may be fewer)")
    offset: int | None = _OFFSET
    safesearch: SafeSearch | None = Field(default=None, description="Filter explicit content: off/moderate/strict")
    spellcheck: bool | None = _SPELL
    freshness: Freshness | None = _FRESH
    text_decorations: bool | None = Field(default=None, description="Highlight the query terms in results")
    extra_snippets: bool | None = _SNIPPETS
    result_filter: list[ResultType] | None = Field(default=None, description="Result types to include")
    units: Units | None = Field(default=None, description="metric or imperial")
    goggles: str | list[str] | None = _GOGGLES
    summary: bool | None = Field(default=None, description="Generate a summarizer key for the results")
    enable_rich_callback: bool | None = Field(default=None, description="Rich callbacks (Pro plans)")
    include_fetch_metadata: bool | None = _META
    operators: bool | None = _OPS


class NewsSearchParams(_Params):
    """Input for BraveNewsSearchTool."""

    q: str = _Q
    search_lang: str | None = _LANG
    ui_lang: str | None = _UI_LANG
    country: str | None = _COUNTRY
    safesearch: SafeSearch | None = Field(default=None, description="Filter explicit content: off/moderate/strict")
    count: int | None = Field(default=None, ge=1, le=50, description="Most results")
    offset: int | None = _OFFSET
    spellcheck: bool | None = _SPELL
    freshness: Freshness | None = _FRESH
    extra_snippets: bool | None = _SNIPPETS
    goggles: str | list[str] | None = _GOGGLES
    include_fetch_metadata: bool | None = _META
    operators: bool | None = _OPS


class VideoSearchParams(_Params):
    """Input for BraveVideoSearchTool."""

    q: str = _Q
    search_lang: str | None = _LANG
    ui_lang: str | None = _UI_LANG
    country: str | None = _COUNTRY
    safesearch: SafeSearch | None = Field(default=None, description="Filter explicit content: off/moderate/strict")
    count: int | None = Field(default=None, ge=1, le=50, description="Most results")
    offset: int | None = _OFFSET
    spellcheck: bool | None = _SPELL
    freshness: Freshness | None = _FRESH
    include_fetch_metadata: bool | None = _META
    operators: bool | None = _OPS


class ImageSearchParams(_Params):
    """Input for BraveImageSearchTool."""

    q: str = _Q
    search_lang: str | None = _LANG
    country: str | None = _COUNTRY
    safesearch: Literal["off", "strict"] | None = Field(default=None, description="off or strict (default strict)")
    count: int | None = Field(default=None, ge=1, le=200, description="Most results")
    spellcheck: bool | None = _SPELL


class LLMContextParams(_Params):
    """Input for BraveLLMContextTool."""

    q: str = _Q
    country: str | None = _COUNTRY
    search_lang: str | None = _LANG
    count: int | None = Field(default=None, ge=1, le=50, description="Most results")
    maximum_number_of_urls: int | None = Field(default=None, ge=1, le=50, description="Most URLs in the context")
    maximum_number_of_tokens: int | None = Field(default=None, ge=1, le=32768, description="About how many tokens")
    maximum_number_of_snippets: int | None = Field(default=None, ge=1, le=100, description="Most snippets")
    context_threshold_mode: Literal["disabled", "strict", "lenient", "balanced"] | None = Field(
        default=None, description="How strictly context is thresholded"
    )
    maximum_number_of_tokens_per_url: int | None = Field(default=None, ge=1, le=8192, description="Tokens per URL")
    maximum_number_of_snippets_per_url: int | None = Field(default=None, ge=1, le=100, description="Snippets per URL")
    goggles: str | list[str] | None = _GOGGLES
    enable_local: bool | None = Field(default=None, description="Local recall (unset: auto-detect)")


class LocalPOIsParams(_Params):
    """Input for BraveLocalPOIsTool."""

    ids: list[str] = _IDS
    search_lang: str | None = _LANG
    ui_lang: str | None = _UI_LANG
    units: Units | None = Field(default=None, description="metric or imperial")


class LocalPOIsDescriptionParams(_Params):
    """Input for BraveLocalPOIsDescriptionTool."""

    ids: list[str] = _IDS


_EMPTY: tuple[Any, ...] = (None, "", "null", [])
_last_request = 0.0
_rate_lock = threading.Lock()


class _BraveTool(HostedTool):
    """Shared request, pacing and trimming of the Brave tools (see the module doc)."""

    search_url: str | None = Field(default=None, description="Full endpoint URL (overrides base_url)")
    country: str | None = Field(default=None, description="Default country when the model gives none")
    n_results: int = Field(default=10, ge=1, description="Default count when the model gives none")
    save_file: bool = Field(default=False, description="Also write the results to search_results_<time>.txt")
    raw: bool = Field(default=False, description="Return Brave's reply whole instead of trimmed")
    headers: dict[str, str] = Field(default_factory=dict, description="Extra request headers (x-loc-lat...)")
    requests_per_second: float = Field(default=1.0, ge=0, description="Most calls per second (0: no pacing)")

    _endpoint: ClassVar[str] = "/web/search"
    _service: ClassVar[str] = "Brave Search"
    _key_envs: ClassVar[tuple[str, ...]] = ("BRAVE_API_KEY",)
    _base_env: ClassVar[str | None] = "BRAVE_BASE_URL"
    _default_base: ClassVar[str] = "https://api.search.brave.com/res/v1"
    _unsupported: ClassVar[dict[str, str]] = {
        "header_schema": "the request headers are checked by Brave; pass extra ones in headers={...}",
    }

    def _pace(self) -> None:
        global _last_request
        if self.requests_per_second <= 0:
            return
        with _rate_lock:
            wait = _last_request + 1.0 / self.requests_per_second - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            _last_request = time.monotonic()

    def _params(self, arguments: dict[str, Any]) -> dict[str, Any]:
        fields = self.args_schema.model_fields
        params = {k: v for k, v in arguments.items() if v not in _EMPTY or (k in fields and fields[k].is_required())}
        if "count" in fields and "count" not in params:
            params["count"] = self.n_results
        if "country" in fields and "country" not in params and self.country:
            params["country"] = self.country
        if isinstance(params.get("result_filter"), list):
            params["result_filter"] = ",".join(params["result_filter"])
        return params

    def _run(self, **arguments: Any) -> Any:
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        headers = {"Accept": "application/json", **self.headers, "X-Subscription-Token": key}
        self._pace()
        reply = self._call("GET", self._endpoint, url=self.search_url, headers=headers, params=self._params(arguments))
        if isinstance(reply, ToolFailure):
            return reply
        if not isinstance(reply, dict):
            return ToolFailure(message="Brave Search answered with something that is not an object", code="invalid_response")
        result = reply if self.raw else self._refine(reply)
        if self.save_file:
            save_results(result)
        return result

    def _refine(self, reply: dict[str, Any]) -> Any:
        return [
            {"url": r.get("url"), "title": r.get("title"), "description": r.get("description")}
            for r in reply.get("results", [])
            if isinstance(r, dict)
        ]


class BraveWebSearchTool(_BraveTool):
    """Web search; each hit with its URL, title and snippets."""

    name: str = "Brave Web Search"
    description: str = (
        "A tool that performs web searches using the Brave Search API. Results are returned as structured JSON data."
    )
    args_schema: type[BaseModel] = WebSearchParams

    def _refine(self, reply: dict[str, Any]) -> Any:
        hits = (reply.get("web") or {}).get("results", [])
        out = []
        for hit in hits:
            snippets = hit.get("extra_snippets") or ([hit["description"]] if hit.get("description") else [])
            out.append({"url": hit.get("url"), "title": hit.get("title"), "snippets": snippets})
        return out


class BraveSearchTool(BraveWebSearchTool):
    """CrewAI's first Brave tool: the same web search as :class:`BraveWebSearchTool`."""

    name: str = "Brave Search"


class BraveNewsSearchTool(_BraveTool):
    """News search; each article with its URL, title and description."""

    name: str = "Brave News Search"
    description: str = (
        "A tool that performs news searches using the Brave Search API. Results are returned as structured JSON data."
    )
    args_schema: type[BaseModel] = NewsSearchParams
    _endpoint: ClassVar[str] = "/news/search"


class BraveVideoSearchTool(_BraveTool):
    """Video search; each video with its URL, title and description."""

    name: str = "Brave Video Search"
    description: str = (
        "A tool that performs video searches using the Brave Search API. Results are returned as structured JSON data."
    )
    args_schema: type[BaseModel] = VideoSearchParams
    _endpoint: ClassVar[str] = "/videos/search"


class BraveImageSearchTool(_BraveTool):
    """Image search; each image with its title, URL and dimensions."""

    name: str = "Brave Image Search"
    description: str = (
        "A tool that performs image searches using the Brave Search API. Results are returned as structured JSON data."
    )
    args_schema: type[BaseModel] = ImageSearchParams
    _endpoint: ClassVar[str] = "/images/search"

    def _refine(self, reply: dict[str, Any]) -> Any:
        out = []
        for hit in reply.get("results", []):
            props = hit.get("properties") or {}
            width, height = props.get("width"), props.get("height")
            out.append({
                "title": hit.get("title"),
                "url": props.get("url"),
                "dimensions": f"{width}x{height}" if width and height else None,
            })
        return out


class BraveLLMContextTool(_BraveTool):
    """Search context prepared for a model (Brave's reply as it is)."""

    name: str = "Brave LLM Context"
    description: str = (
        "A tool that retrieves context for LLM usage from the Brave Search API. "
        "Results are returned as structured JSON data."
    )
    args_schema: type[BaseModel] = LLMContextParams
    _endpoint: ClassVar[str] = "/llm/context"

    def _refine(self, reply: dict[str, Any]) -> Any:
        return reply


def _hours(place: dict[str, Any]) -> list[dict[str, str]] | None:
    hours = place.get("opening_hours") or {}
    slots = list(hours.get("current_day") or [])
    for day in hours.get("days") or []:
        slots.extend(day)
    out = [{"day": str(s.get("full_name", "")).lower(), "opens": s.get("opens"), "closes": s.get("closes")} for s in slots]
    return out or None


class BraveLocalPOIsTool(_BraveTool):
    """Details of places found by a web search (their ids), with address, contact and hours."""

    name: str = "Brave Local POIs"
    description: str = (
        "A tool that retrieves local POIs using the Brave Search API. Results are returned as structured JSON data."
    )
    args_schema: type[BaseModel] = LocalPOIsParams
    _endpoint: ClassVar[str] = "/local/pois"

    def _refine(self, reply: dict[str, Any]) -> Any:
        out = []
        for place in reply.get("results", []):
            contact = place.get("contact") or {}
            out.append({
                "title": place.get("title"),
                "url": place.get("url"),
                "description": place.get("description"),
                "address": (place.get("postal_address") or {}).get("displayAddress"),
                "contact": contact.get("telephone") or contact.get("email") or None,
                "opening_hours": _hours(place),
            })
        return out


class BraveLocalPOIsDescriptionTool(_BraveTool):
    """AI-written descriptions of places (by id)."""

    name: str = "Brave Local POI Descriptions"
    description: str = (
        "A tool that retrieves AI-generated descriptions for local POIs using the Brave Search API. "
        "Results are returned as structured JSON data."
    )
    args_schema: type[BaseModel] = LocalPOIsDescriptionParams
    _endpoint: ClassVar[str] = "/local/descriptions"

    def _refine(self, reply: dict[str, Any]) -> Any:
        return [{"id": r.get("id"), "description": r.get("description")} for r in reply.get("results", [])]
