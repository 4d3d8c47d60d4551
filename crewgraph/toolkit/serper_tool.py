"""SerperDevTool: Google results through the serper.dev API (``SERPER_API_KEY``).

One ``POST {base}/{search_type}`` with ``{"q", "num", "gl", "location", "hl"}``
and the ``X-API-KEY`` header, as serper.dev documents. The reply's organic
results (and knowledge graph, "people also ask", related searches, or news
items for ``search_type="news"``) are handed back as a dict the model reads as
JSON; ``save_file=True`` also writes them to ``search_results_<time>.txt``.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["SerperDevTool", "SerperDevToolSchema"]


class SerperDevToolSchema(BaseModel):
    """Input for SerperDevTool."""

    search_query: str = Field(..., description="Mandatory search query you want to use to search the internet")


def _organic(items: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    keep = ("title", "link", "snippet", "position", "date", "sitelinks")
    return [{k: item[k] for k in keep if k in item} for item in items[:limit]]


class SerperDevTool(HostedTool):
    """Search the internet (or news) with serper.dev; ``n_results`` results per query."""

    name: str = "Search the internet with Serper"
    description: str = (
        "A tool that can be used to search the internet with a search_query. "
        "Supports different search types: 'search' (default), 'news'"
    )
    args_schema: type[BaseModel] = SerperDevToolSchema
    search_url: str | None = Field(default=None, description="Full endpoint URL (overrides base_url and search_type)")
    n_results: int = Field(default=10, ge=1, le=100)
    save_file: bool = False
    search_type: Literal["search", "news"] = "search"
    country: str = ""
    location: str = ""
    locale: str = ""

    _service: ClassVar[str] = "Serper"
    _key_envs: ClassVar[tuple[str, ...]] = ("SERPER_API_KEY",)
    _base_env: ClassVar[str | None] = "SERPER_BASE_URL"
    _default_base: ClassVar[str] = "https://google.serper.dev"

    def _run(self, search_query: str) -> dict[str, Any] | ToolFailure:
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        search_type = self.search_type
        body: dict[str, Any] = {"q": search_query, "num": self.n_results}
        for field, value in (("gl", self.country), ("location", self.location), ("hl", self.locale)):
            if value:
                body[field] = value
        reply = self._call(
            "POST",
            f"/{search_type}",
            url=self.search_url,
            headers={"X-API-KEY": key, "Content-Type": "application/json"},
            json_body=body,
        )
        if isinstance(reply, ToolFailure):
            return reply
        if not isinstance(reply, dict):
            return ToolFailure(message=f"Serper answered with {type(reply).__name__}, not an object", code="invalid_response")
        results = self._results(reply, search_type)
        if self.save_file:
            stamp = _dt.datetime.now().strftime("%Y-%m-%d_%H-%M-%S")
            Path(f"search_results_{stamp}.txt").write_text(json.dumps(results, indent=2, ensure_ascii=False), encoding="utf-8")
        return results

    def _results(self, reply: dict[str, Any], search_type: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if "searchParameters" in reply:
            out["searchParameters"] = reply["searchParameters"]
        if search_type == "news":
            keep = ("title", "link", "snippet", "date", "source", "imageUrl")
            out["news"] = [{k: n[k] for k in keep if k in n} for n in reply.get("news", [])[: self.n_results]]
            return out
        if isinstance(reply.get("knowledgeGraph"), dict):
            out["knowledgeGraph"] = reply["knowledgeGraph"]
        out["organic"] = _organic(reply.get("organic", []), self.n_results)
        if reply.get("peopleAlsoAsk"):
            out["peopleAlsoAsk"] = reply["peopleAlsoAsk"][: self.n_results]
        if reply.get("relatedSearches"):
            out["relatedSearches"] = reply["relatedSearches"][: self.n_results]
        if reply.get("credits") is not None:
            out["credits"] = reply["credits"]
        return out
