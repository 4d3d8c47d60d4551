"""The cap on what one tool result puts in front of a model.

A tool can return anything (a 20 MB page became a 19 MB request); the model
reads at most :data:`DEFAULT_MAX_TOOL_RESULT_CHARS` characters of it, or the
limit set on the tool (``BaseTool.max_result_chars``) or on the agent
(``Agent.max_tool_result_chars``), the tool's winning. A cut result ends with
a note saying how much was cut, so the model knows it saw only the start.
"""

from __future__ import annotations

__all__ = ["DEFAULT_MAX_TOOL_RESULT_CHARS", "cap_result", "result_limit"]

DEFAULT_MAX_TOOL_RESULT_CHARS = 100_000
"""About 25,000 tokens: room for a long document, far from a context window's size.
As large as ``FileReadTool``'s own ``max_chars``, so toolkit results are not cut twice."""


def result_limit(tool_limit: int | None, agent_limit: int | None) -> int:
    """The limit for one call: the tool's, else the agent's, else the default."""
    for limit in (tool_limit, agent_limit):
        if limit is not None:
            return limit
    return DEFAULT_MAX_TOOL_RESULT_CHARS


def cap_result(text: str, limit: int) -> str:
    """``text`` cut at ``limit`` characters, with a note when anything was cut."""
    if len(text) <= limit:
        return text
    return (
        text[:limit]
        + f"\n[... tool result truncated: {len(text) - limit} more characters not shown "
        f"(limit {limit}); ask the tool for a smaller part if you need more]"
    )
