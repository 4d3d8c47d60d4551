"""LinkupSearchTool: web search with Linkup (``LINKUP_API_KEY``).

``POST {base}/v1/search`` with ``Authorization: Bearer`` and ``{"q", "depth",
"outputType"}``, as Linkup documents (its ``linkup-sdk`` sends the same; it
is not needed). As in CrewAI, the result is ``{"success": True, "results":
[{name, url, content}]}`` for search results, and the answer with its
sources for ``output_type="sourcedAnswer"``. A failure is a ToolFailure
(CrewAI returns ``{"success": False, "error": ...}``). ``base_url=`` or
``LINKUP_BASE_URL`` moves the API (default ``https://api.linkup.so``).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["LinkupSearchTool"]


class LinkupSearchTool(HostedTool):
    """Contextual web search; results with their name, URL and content."""

    name: str = "Linkup Search Tool"
    description: str = "Performs an API call to Linkup to retrieve contextual information."

    _service: ClassVar[str] = "Linkup"
    _key_envs: ClassVar[tuple[str, ...]] = ("LINKUP_API_KEY",)
    _base_env: ClassVar[str | None] = "LINKUP_BASE_URL"
    _default_base: ClassVar[str] = "https://api.linkup.so"

    def _run(
        self,
        query: str,
        depth: Literal["standard", "deep"] = "standard",
        output_type: Literal["searchResults", "sourcedAnswer", "structured"] = "searchResults",
    ) -> dict[str, Any] | ToolFailure:
        if output_type == "structured":
            return ToolFailure(
                message="LinkupSearchTool: output_type='structured' needs a structured_output_schema, which this "
                "tool does not take; use 'searchResults' or 'sourcedAnswer'.",
                code="unsupported_option",
            )
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        reply = self._call(
            "POST", "/v1/search", headers={"Authorization": f"Bearer {key}"},
            json_body={"q": query, "depth": depth, "outputType": output_type},
        )
        if isinstance(reply, ToolFailure):
            return reply
        if not isinstance(reply, dict):
            return ToolFailure(message="Linkup answered with something that is not an object", code="invalid_response")
        if output_type == "sourcedAnswer":
            return {"success": True, "answer": reply.get("answer"), "sources": reply.get("sources", [])}
        results = [{"name": r.get("name"), "url": r.get("url"), "content": r.get("content")}
                   for r in reply.get("results", []) if isinstance(r, dict)]
        return {"success": True, "results": results}
