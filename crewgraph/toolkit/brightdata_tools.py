"""The Bright Data tools: SERP search, Web Unlocker scraping, and structured datasets (``BRIGHT_DATA_API_KEY``).

* ``BrightDataSearchTool`` and ``BrightDataWebUnlockerTool``: ``POST
  {base}/request`` with ``Authorization: Bearer`` and ``{"zone", "url",
  "format"}`` (the search builds the engine's results URL with ``gl``, ``hl``,
  ``num``, ``brd_json=1``, ``tbm``, ``brd_mobile`` parameters, as Bright Data's
  SERP API documents); the zone comes from ``zone=`` or ``BRIGHT_DATA_ZONE``.
  The answer is the reply's body as text, as in CrewAI.
* ``BrightDataDatasetTool``: ``POST {base}/datasets/v3/trigger?dataset_id=...``
  with ``[{"url", ...}]``, then ``GET /datasets/v3/progress/{snapshot_id}``
  until ``ready`` and ``GET /datasets/v3/snapshot/{snapshot_id}?format=json``.
  ``dataset_type`` is one of CrewAI's names (``amazon_product``,
  ``linkedin_person_profile``...) or a raw ``gd_...`` dataset id.

``base_url=`` or ``BRIGHTDATA_API_URL`` moves the API (default
``https://api.brightdata.com``).
"""

from __future__ import annotations

import time
from typing import Any, ClassVar
from urllib.parse import quote

from pydantic import BaseModel, Field

from crewgraph.toolkit._hosted import HostedTool, first_env
from crewgraph.toolkit._web import check_url
from crewgraph.tools.tool_failure import ToolFailure

__all__ = [
    "DATASETS",
    "BrightDataDatasetTool",
    "BrightDataDatasetToolSchema",
    "BrightDataSearchTool",
    "BrightDataSearchToolSchema",
    "BrightDataUnlockerToolSchema",
    "BrightDataWebUnlockerTool",
]

DATASETS: dict[str, str] = {
    "amazon_product": "gd_l7q7dkf244hwjntr0",
    "amazon_product_reviews": "gd_le8e811kzy4ggddlq",
    "amazon_product_search": "gd_lwdb4vjm1ehb499uxs",
    "walmart_product": "gd_l95fol7l1ru6rlo116",
    "walmart_seller": "gd_m7ke48w81ocyu4hhz0",
    "ebay_product": "gd_ltr9mjt81n0zzdk1fb",
    "homedepot_products": "gd_lmusivh019i7g97q2n",
    "zara_products": "gd_lct4vafw1tgx27d4o0",
    "etsy_products": "gd_ltppk0jdv1jqz25mz",
    "bestbuy_products": "gd_ltre1jqe1jfr7cccf",
    "linkedin_person_profile": "gd_l1viktl72bvl7bjuj0",
    "linkedin_company_profile": "gd_l1vikfnt1wgvvqz95w",
    "linkedin_job_listings": "gd_lpfll7v5hcqtkxl6l",
    "linkedin_posts": "gd_lyy3tktm25m4avu764",
    "linkedin_people_search": "gd_m8d03he47z8nwb5xc",
    "crunchbase_company": "gd_l1vijqt9jfj7olije",
    "zoominfo_company_profile": "gd_m0ci4a4ivx3j5l6nx",
    "instagram_profiles": "gd_l1vikfch901nx3by4",
    "instagram_posts": "gd_lk5ns7kz21pck8jpis",
    "instagram_reels": "gd_lyclm20il4r5helnj",
    "instagram_comments": "gd_ltppn085pokosxh13",
    "facebook_posts": "gd_lyclm1571iy3mv57zw",
    "facebook_marketplace_listings": "gd_lvt9iwuh6fbcwmx1a",
    "facebook_company_reviews": "gd_m0dtqpiu1mbcyc2g86",
    "facebook_events": "gd_m14sd0to1jz48ppm51",
    "tiktok_profiles": "gd_l1villgoiiidt09ci",
    "tiktok_posts": "gd_lu702nij2f790tmv9h",
    "tiktok_shop": "gd_m45m1u911dsa4274pi",
}
"""Bright Data's dataset ids for the ``dataset_type`` names CrewAI's tool knows."""

_ENGINES = {"google": "https://www.google.com/search?q=", "bing": "https://www.bing.com/search?q=",
            "yandex": "https://yandex.com/search/?text="}
_MOBILE = {"mobile": "1", "ios": "ios", "android": "android"}


class BrightDataSearchToolSchema(BaseModel):
    """Input for BrightDataSearchTool."""

    query: str = Field(..., description="Search query to perform")
    search_engine: str | None = Field(default="google", description="Search engine: google, bing or yandex")
    country: str | None = Field(default="us", description="Two-letter country code for geo-targeting (e.g. 'us')")
    language: str | None = Field(default="en", description="Language code (e.g. 'en', 'es')")
    search_type: str | None = Field(default=None, description="Type of search (e.g. 'isch' images, 'nws' news, 'jobs')")
    device_type: str | None = Field(default="desktop", description="desktop, mobile, ios or android")
    parse_results: bool | None = Field(default=True, description="Structured JSON (true) or raw HTML (false)")


class BrightDataUnlockerToolSchema(BaseModel):
    """Input for BrightDataWebUnlockerTool."""

    url: str = Field(..., description="URL to perform the web scraping")
    format: str | None = Field(default="raw", description="Response format (raw is standard)")
    data_format: str | None = Field(default="markdown", description="Response data format: markdown or html")


class BrightDataDatasetToolSchema(BaseModel):
    """Input for BrightDataDatasetTool."""

    dataset_type: str = Field(..., description="The Bright Data Dataset Type")
    format: str | None = Field(default="json", description="Response format: json, ndjson, jsonl or csv")
    url: str = Field(..., description="The URL to extract data from")
    zipcode: str | None = Field(default=None, description="Optional zipcode")
    additional_params: dict[str, Any] | None = Field(default=None, description="Additional params if any")


class _BrightDataTool(HostedTool):
    zone: str | None = Field(default=None, description="Bright Data zone (else BRIGHT_DATA_ZONE)")

    _service: ClassVar[str] = "Bright Data"
    _key_envs: ClassVar[tuple[str, ...]] = ("BRIGHT_DATA_API_KEY",)
    _other_envs: ClassVar[tuple[str, ...]] = ("BRIGHT_DATA_ZONE",)
    _base_env: ClassVar[str | None] = "BRIGHTDATA_API_URL"
    _default_base: ClassVar[str] = "https://api.brightdata.com"
    _needs_zone: ClassVar[bool] = True

    def validate_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Only the arguments given, so the tool's own defaults apply to the rest (CrewAI's ``x or self.x``)."""
        validated = self.args_schema.model_validate(arguments)
        return {name: getattr(validated, name) for name in validated.model_fields_set}

    def _zone(self) -> str | None:
        return self.zone or first_env("BRIGHT_DATA_ZONE")

    def config_problems(self) -> list[str]:
        problems = super().config_problems()
        if self._needs_zone and not self._zone():
            problems.append(f"{type(self).__name__} needs a Bright Data zone: set BRIGHT_DATA_ZONE or pass zone=...")
        return problems

    def _request(self, payload: dict[str, Any]) -> str | ToolFailure:
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        zone = self._zone()
        if not zone:
            return ToolFailure(message="No Bright Data zone: set BRIGHT_DATA_ZONE or pass zone=...", code="missing_zone")
        return self._call_text("POST", "/request", headers={"Authorization": f"Bearer {key}"},
                               json_body={"zone": zone, **payload})


class BrightDataSearchTool(_BrightDataTool):
    """Search-engine results (parsed JSON or raw HTML) through Bright Data's SERP API."""

    name: str = "Bright Data SERP Search"
    description: str = "Tool to perform web search using Bright Data SERP API."
    args_schema: type[BaseModel] = BrightDataSearchToolSchema
    query: str | None = None
    search_engine: str = "google"
    country: str = "us"
    language: str = "en"
    search_type: str | None = None
    device_type: str = "desktop"
    parse_results: bool = True
    results_count: int = Field(default=10, ge=1, le=100, description="Results asked of the engine (num=)")

    def _run(
        self,
        query: str | None = None,
        search_engine: str | None = None,
        country: str | None = None,
        language: str | None = None,
        search_type: str | None = None,
        device_type: str | None = None,
        parse_results: bool | None = None,
    ) -> str | ToolFailure:
        text = query or self.query
        if not text:
            return ToolFailure(message="No query given.", code="missing_query")
        engine = search_engine or self.search_engine
        if engine not in _ENGINES:
            return ToolFailure(message=f"Unknown search_engine {engine!r}: use google, bing or yandex.", code="invalid_engine")
        url = _ENGINES[engine] + quote(text)
        parts = [f"gl={country or self.country}", f"hl={language or self.language}", f"num={self.results_count}"]
        if parse_results if parse_results is not None else self.parse_results:
            parts.append("brd_json=1")
        kind = search_type or self.search_type
        if kind:
            parts.append("ibp=htl;jobs" if kind == "jobs" else f"tbm={kind}")
        device = device_type or self.device_type
        if device in _MOBILE:
            parts.append(f"brd_mobile={_MOBILE[device]}")
        return self._request({"url": url + "&" + "&".join(parts), "format": "raw"})


class BrightDataWebUnlockerTool(_BrightDataTool):
    """A page fetched through Bright Data's Web Unlocker (CAPTCHAs and blocks handled), as Markdown or HTML."""

    name: str = "Bright Data Web Unlocker Scraping"
    description: str = "Tool to perform web scraping using Bright Data Web Unlocker"
    args_schema: type[BaseModel] = BrightDataUnlockerToolSchema
    url: str | None = None
    format: str = "raw"
    data_format: str = "markdown"

    def _run(self, url: str | None = None, format: str | None = None, data_format: str | None = None) -> str | ToolFailure:
        target = url or self.url
        if not target:
            return ToolFailure(message="No url given: say which page to scrape.", code="missing_url")
        bad = check_url(target)
        if bad is not None:
            return bad
        shape = data_format or self.data_format
        if shape not in ("html", "markdown"):
            return ToolFailure(message=f"Unsupported data format: {shape}. Must be html or markdown.", code="invalid_format")
        payload: dict[str, Any] = {"url": target, "format": format or self.format}
        if shape == "markdown":
            payload["data_format"] = "markdown"
        return self._request(payload)


class BrightDataDatasetTool(_BrightDataTool):
    """Structured records (products, profiles, posts...) from Bright Data's datasets, for one URL."""

    name: str = "Bright Data Dataset Tool"
    description: str = (
        "Scrapes structured data using Bright Data Dataset API from a URL and optional input parameters"
    )
    args_schema: type[BaseModel] = BrightDataDatasetToolSchema
    dataset_type: str | None = None
    url: str | None = None
    format: str = "json"
    zipcode: str | None = None
    additional_params: dict[str, Any] | None = None
    polling_interval: float = Field(default=1.0, gt=0, description="Seconds between progress checks")
    max_wait: float = Field(default=600.0, gt=0, description="Most seconds to wait for the snapshot")

    _needs_zone: ClassVar[bool] = False

    def _run(
        self,
        url: str | None = None,
        dataset_type: str | None = None,
        format: str | None = None,
        zipcode: str | None = None,
        additional_params: dict[str, Any] | None = None,
    ) -> str | ToolFailure:
        kind, target = dataset_type or self.dataset_type, url or self.url
        if not kind or not target:
            return ToolFailure(message="Both dataset_type and url are needed.", code="missing_argument")
        dataset_id = DATASETS.get(kind) or (kind if kind.startswith("gd_") else None)
        if dataset_id is None:
            return ToolFailure(message=f"Unknown dataset_type {kind!r}: one of {', '.join(DATASETS)}, or a gd_... id",
                               code="unknown_dataset")
        shape = format or self.format
        if shape not in ("json", "ndjson", "jsonl", "csv"):
            return ToolFailure(message=f"Unsupported output format {shape!r}: json, ndjson, jsonl or csv.",
                               code="invalid_format")
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        headers = {"Authorization": f"Bearer {key}"}
        record: dict[str, Any] = {"url": target}
        if zipcode or self.zipcode:
            record["zipcode"] = zipcode or self.zipcode
        record.update(additional_params or self.additional_params or {})
        started = self._call("POST", "/datasets/v3/trigger", headers=headers, json_body=[record],
                             params={"dataset_id": dataset_id, "include_errors": "true"})
        if isinstance(started, ToolFailure):
            return started
        snapshot = started.get("snapshot_id") if isinstance(started, dict) else None
        if not snapshot:
            return ToolFailure(message=f"Bright Data started no snapshot: {started}", code="invalid_response")
        deadline = time.monotonic() + self.max_wait
        while True:
            progress = self._call("GET", f"/datasets/v3/progress/{snapshot}", headers=headers)
            if isinstance(progress, ToolFailure):
                return progress
            state = progress.get("status") if isinstance(progress, dict) else None
            if state == "ready":
                break
            if state in ("error", "failed"):
                return ToolFailure(message=f"The Bright Data snapshot {snapshot} failed: {progress}", code="snapshot_failed")
            if time.monotonic() + self.polling_interval > deadline:
                return ToolFailure(message=f"The Bright Data snapshot {snapshot} was still {state!r} after "
                                   f"{self.max_wait:g}s", code="snapshot_timeout")
            time.sleep(self.polling_interval)
        return self._call_text("GET", f"/datasets/v3/snapshot/{snapshot}", headers=headers, params={"format": shape})
