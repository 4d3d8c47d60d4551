"""Tools from plain functions: the ``Tool`` wrapper and the ``@tool`` decorator.

``@tool`` is the shortest way to give an agent a capability: the function's
signature becomes the argument schema and its docstring the description the
model reads, so a missing docstring is an error rather than a silently
useless tool.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, overload

from pydantic import Field, field_serializer

from crewgraph.tools.base_tool import BaseTool, _ref

__all__ = ["StructuredTool", "Tool", "tool"]


class Tool(BaseTool):
    """A tool that calls ``func`` (sync or async) with the validated arguments."""

    func: Callable[..., Any] = Field(description="The function the tool runs")

    def _signature_target(self) -> Callable[..., Any]:
        return self.func

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(*args, **kwargs)

    @field_serializer("func", when_used="json")
    def _serialize_func(self, value: Callable[..., Any]) -> str | None:
        return _ref(value)

    @classmethod
    def from_function(
        cls,
        func: Callable[..., Any],
        name: str | None = None,
        description: str | None = None,
        **fields: Any,
    ) -> Tool:
        """Wrap ``func``; ``description`` defaults to its docstring (required one way or the other)."""
        tool_name = name or getattr(func, "__name__", None) or type(func).__name__
        text = description if description is not None else inspect.getdoc(func)
        if not text or not text.strip():
            raise ValueError(
                f"Tool function {tool_name!r} needs a docstring: it is the description the "
                "model reads to decide when to use the tool"
            )
        return cls(name=tool_name, description=text.strip(), func=func, **fields)


StructuredTool = Tool
"""LangChain-style alias: a tool built from a function with a structured args schema."""


@overload
def tool(func: Callable[..., Any], /) -> Tool: ...


@overload
def tool(
    name: str | None = None,
    /,
    *,
    result_schema: Any = None,
    result_as_answer: bool = False,
    max_usage_count: int | None = None,
    **fields: Any,
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    *args: str | Callable[..., Any] | None,
    result_schema: Any = None,
    result_as_answer: bool = False,
    max_usage_count: int | None = None,
    **fields: Any,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Turn a function (sync or async) into a :class:`Tool`, as CrewAI's ``tool(*args, ...)``.

    ``@tool`` names the tool after the function; ``@tool("Name")`` sets the
    name; ``tool(func)`` wraps at once. Keyword options (``result_schema``,
    ``result_as_answer``, ``max_usage_count``, ``tool_failure_policy``,
    ``cache_function``...) become tool fields.
    """

    unknown = sorted(set(fields) - set(Tool.model_fields) - {"name", "description"})
    if unknown:
        # Tool ignores unknown keywords, so a typo (``result_as_anwser=True``) would be lost silently.
        options = ", ".join(sorted(set(Tool.model_fields) - {"func", "name", "description", "args_schema"}))
        raise TypeError(f"@tool got unknown option(s) {', '.join(unknown)}; tool options are: {options}")
    if len(args) > 1:
        raise TypeError(f"tool() takes one name or one function, got {len(args)} positional arguments")
    if result_schema is not None:
        fields["result_schema"] = result_schema
    name_or_func = args[0] if args else None

    def build(func: Callable[..., Any], name: str | None) -> Tool:
        return Tool.from_function(
            func,
            name=name,
            result_as_answer=result_as_answer,
            max_usage_count=max_usage_count,
            **fields,
        )

    if callable(name_or_func):
        return build(name_or_func, None)
    if name_or_func is not None and not isinstance(name_or_func, str):
        raise TypeError(f"@tool takes a name string or a function, got {type(name_or_func).__name__}")

    def decorator(func: Callable[..., Any]) -> Tool:
        if not callable(func):
            raise TypeError(f"@tool must decorate a function, got {type(func).__name__}")
        return build(func, name_or_func)

    return decorator
