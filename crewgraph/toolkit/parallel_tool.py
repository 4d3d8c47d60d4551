"""ParallelSearchTool: web search with Parallel's Search API (``PARALLEL_API_KEY``).

``POST {base}/v1beta/search`` with the ``x-api-key`` header and
``{"objective", "search_queries", "processor", "max_results",
"max_chars_per_result", "source_policy"}``, as Parallel documents. The reply
(``search_id`` and ranked results with excerpts) comes back as compact JSON,
as in CrewAI. ``search_url=`` replaces the endpoint; ``base_url=`` or
``PARALLEL_BASE_URL`` moves the API (default ``https://api.parallel.ai``).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, Field

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["ParallelSearchInput", "ParallelSearchTool"]


class ParallelSearchInput(BaseModel):
    """Input for ParallelSearchTool; give an objective, search queries, or both."""

    objective: str | None = Field(None, max_length=5000, description="Natural-language goal for the web research")
    search_queries: list[Annotated[str, Field(max_length=200)]] | None = Field(
        default=None, min_length=1, max_length=5, description="Keyword queries (at most 5, each at most 200 chars)"
    )
    processor: str = Field(default="base", pattern=r"^(base|pro)$", description="'base' (fast) or 'pro' (fresher)")
    max_results: int = Field(default=10, ge=1, le=40, description="Most results")
    max_chars_per_result: int = Field(default=6000, ge=100, description="Most characters per excerpt")
    source_policy: dict[str, Any] | None = Field(default=None, description="Source policy (include/exclude domains)")


class ParallelSearchTool(HostedTool):
    """Ranked web results with excerpts written for models."""

    name: str = "Parallel Web Search Tool"
    description: str = (
        "Search the web using Parallel's Search API (v1beta). Returns ranked results with compressed excerpts "
        "optimized for LLMs."
    )
    args_schema: type[BaseModel] = ParallelSearchInput
    search_url: str | None = Field(default=None, description="Full endpoint URL (overrides base_url)")

    _service: ClassVar[str] = "Parallel"
    _key_envs: ClassVar[tuple[str, ...]] = ("PARALLEL_API_KEY",)
    _base_env: ClassVar[str | None] = "PARALLEL_BASE_URL"
    _default_base: ClassVar[str] = "https://api.parallel.ai"

    def _run(
        self,
        objective: str | None = None,
        search_queries: list[str] | None = None,
        processor: str = "base",
        max_results: int = 10,
        max_chars_per_result: int = 6000,
        source_policy: dict[str, Any] | None = None,
    ) -> str | ToolFailure:
        if not objective and not search_queries:
            return ToolFailure(message="Give at least one of 'objective' or 'search_queries'.", code="missing_query")
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        body: dict[str, Any] = {"processor": processor, "max_results": max_results,
                                "max_chars_per_result": max_chars_per_result}
        for name, value in (("objective", objective), ("search_queries", search_queries),
                            ("source_policy", source_policy)):
            if value is not None:
                body[name] = value
        reply = self._call("POST", "/v1beta/search", url=self.search_url, headers={"x-api-key": key}, json_body=body)
        if isinstance(reply, ToolFailure):
            return reply
        return json.dumps(reply or {}, ensure_ascii=False)
