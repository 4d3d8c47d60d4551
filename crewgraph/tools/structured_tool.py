"""CrewAI's ``crewai.tools.structured_tool``: ``CrewStructuredTool``, a function with an argument
schema that is called with a dict (or JSON text) of arguments, and the helpers that describe a
tool to a model.

In crewgraph an agent's tools are :class:`~crewgraph.tools.base_tool.BaseTool` objects; a
``CrewStructuredTool`` given to an agent becomes one (its original tool when it came from
``BaseTool.to_structured_tool()``, else a ``Tool`` over its function), so the engine runs it
with the same validation, usage limit, cache and failure policy as any tool.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import textwrap
import typing
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, create_model, model_validator

from crewgraph.tools.tool_failure import ToolFailurePolicy

__all__ = [
    "CrewStructuredTool",
    "ToolUsageLimitExceededError",
    "build_schema_hint",
    "format_description_for_llm",
    "strip_composite_description_prefix",
]

_COMPOSITE = re.compile(r"^Tool Name:.*\nTool Arguments:.*\nTool Description:\s*", re.DOTALL)


class ToolUsageLimitExceededError(Exception):
    """A ``CrewStructuredTool`` was invoked after its ``max_usage_count`` calls."""


def build_schema_hint(args_schema: type[BaseModel]) -> str:
    """The expected arguments and the required ones of ``args_schema``, appended to an argument
    validation error so the model can correct its call ('' when the schema cannot be read)."""
    try:
        schema = args_schema.model_json_schema()
    except Exception:
        return ""
    return (f"\nExpected arguments: {json.dumps(schema.get('properties', {}))}"
            f"\nRequired: {json.dumps(schema.get('required', []))}")


def strip_composite_description_prefix(description: str) -> str:
    """The authored text of a description that is already a composed ``Tool Name: / Tool
    Arguments: / Tool Description:`` block; any other description unchanged."""
    match = _COMPOSITE.match(description)
    return description[match.end():] if match else description


def format_description_for_llm(name: str, args_schema: type[BaseModel] | None, description: str) -> str:
    """The block a text-protocol prompt shows for one tool: its name, its arguments' JSON schema
    and its description (idempotent: a composed description is not composed twice)."""
    from crewgraph.tools._names import sanitize_tool_name

    description = strip_composite_description_prefix(description)
    args_json = json.dumps(args_schema.model_json_schema(), indent=2) if args_schema is not None else "{}"
    return f"Tool Name: {sanitize_tool_name(name)}\nTool Arguments: {args_json}\nTool Description: {description}"


def _schema_from_function(name: str, func: Callable[..., Any]) -> type[BaseModel]:
    """A pydantic model of ``func``'s parameters (their annotations and defaults)."""
    try:
        hints = typing.get_type_hints(func)
    except Exception:
        hints = {}
    fields: dict[str, Any] = {}
    for pname, param in inspect.signature(func).parameters.items():
        if pname in ("self", "cls") or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        default = ... if param.default is param.empty else param.default
        fields[pname] = (hints.get(pname, Any), Field(default=default))
    return create_model(f"{name.title().replace(' ', '')}Schema", **fields)


def _result_schema_of(func: Callable[..., Any]) -> type[BaseModel] | None:
    try:
        ret = typing.get_type_hints(func).get("return")
    except Exception:
        return None
    return ret if isinstance(ret, type) and issubclass(ret, BaseModel) else None


async def _awaited(value: Any) -> Any:
    return await value


class CrewStructuredTool(BaseModel):
    """A function plus the schema of its arguments, invoked with a dict or JSON text of them."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str = ""
    description: str = ""
    args_schema: type[BaseModel] | None = None
    result_schema: type[BaseModel] | None = None
    func: Any = Field(default=None, exclude=True)
    result_as_answer: bool = False
    max_usage_count: int | None = None
    current_usage_count: int = 0
    cache_function: Any = Field(default=None, exclude=True)
    tool_failure_policy: ToolFailurePolicy | None = None
    _original_tool: Any = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _func_matches_schema(self) -> CrewStructuredTool:
        """Every required parameter of ``func`` must be an argument of ``args_schema``."""
        if self.func is None or self.args_schema is None:
            return self
        fields = self.args_schema.model_fields
        for pname, param in inspect.signature(self.func).parameters.items():
            if pname in ("self", "cls") or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            if param.default is param.empty and pname not in fields:
                raise ValueError(f"Required function parameter '{pname}' not found in args_schema")
        return self

    @classmethod
    def from_function(
        cls,
        func: Callable[..., Any],
        name: str | None = None,
        description: str | None = None,
        return_direct: bool = False,
        args_schema: type[BaseModel] | None = None,
        result_schema: type[BaseModel] | None = None,
        infer_schema: bool = True,
        **kwargs: Any,
    ) -> CrewStructuredTool:
        """A tool over ``func``: named after it, described by its docstring (one of the two is
        required), its arguments' schema inferred from its signature unless given."""
        name = name or func.__name__
        description = description or inspect.getdoc(func)
        if description is None:
            raise ValueError(f"Function {name} must have a docstring if description not provided.")
        if args_schema is None:
            if not infer_schema:
                raise ValueError("Either args_schema must be provided or infer_schema must be True.")
            args_schema = _schema_from_function(name, func)
        return cls(name=name, description=textwrap.dedent(description).strip(), args_schema=args_schema,
                   result_schema=result_schema or _result_schema_of(func), func=func,
                   result_as_answer=return_direct, **kwargs)

    @property
    def args(self) -> dict[str, Any]:
        """The JSON schema properties of the arguments ({} without a schema)."""
        return self.args_schema.model_json_schema().get("properties", {}) if self.args_schema else {}

    @property
    def formatted_description(self) -> str:
        """The name, argument schema and description as a prompt shows them."""
        return format_description_for_llm(self.name, self.args_schema, self.description)

    def has_reached_max_usage_count(self) -> bool:
        return self.max_usage_count is not None and self.current_usage_count >= self.max_usage_count

    def format_output_for_agent(self, raw_result: Any) -> str:
        """The text an agent reads for ``raw_result`` (the original tool's rendering when there is one)."""
        if self._original_tool is not None:
            return str(self._original_tool.format_output_for_agent(raw_result))
        if self.result_schema is not None:
            try:
                data = raw_result.model_dump() if isinstance(raw_result, BaseModel) else raw_result
                return self.result_schema.model_validate(data).model_dump_json()
            except Exception:
                return str(raw_result)
        if isinstance(raw_result, dict | list | tuple):
            try:
                return json.dumps(raw_result)
            except (TypeError, ValueError):
                pass
        return str(raw_result)

    def _parse_args(self, raw: str | dict[str, Any]) -> dict[str, Any]:
        if isinstance(raw, str):
            try:
                raw = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise ValueError(f"Failed to parse arguments as JSON: {exc}") from exc
        if self.args_schema is None:
            return raw if isinstance(raw, dict) else {}
        try:
            return dict(self.args_schema.model_validate(raw).model_dump())
        except Exception as exc:
            raise ValueError(f"Arguments validation failed: {exc}{build_schema_hint(self.args_schema)}") from exc

    def _claim(self) -> None:
        if self.has_reached_max_usage_count():
            raise ToolUsageLimitExceededError(
                f"Tool '{self.name}' has reached its maximum usage limit of {self.max_usage_count}. "
                f"You should not use the {self.name} tool again."
            )
        self.current_usage_count += 1
        if self._original_tool is not None:
            self._original_tool.current_usage_count = self.current_usage_count

    def invoke(self, input: str | dict[str, Any], config: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        """Validate ``input`` against ``args_schema`` and call the function (an async one runs to
        completion); ``ToolUsageLimitExceededError`` once ``max_usage_count`` calls were made."""
        args = self._parse_args(input)
        self._claim()
        result = self.func(**args, **kwargs)
        if inspect.isawaitable(result):
            from crewgraph._internal.sync import run_sync

            return run_sync(_awaited(result))
        return result

    async def ainvoke(self, input: str | dict[str, Any], config: dict[str, Any] | None = None,
                      **kwargs: Any) -> Any:
        """:meth:`invoke` on the event loop (a blocking function runs in a worker thread)."""
        args = self._parse_args(input)
        self._claim()
        if inspect.iscoroutinefunction(self.func):
            return await self.func(**args, **kwargs)
        result = await asyncio.to_thread(lambda: self.func(**args, **kwargs))
        return await result if inspect.isawaitable(result) else result

    def to_base_tool(self) -> Any:
        """The crewgraph tool an agent runs for this one (its original tool, if it has one)."""
        if self._original_tool is not None:
            return self._original_tool
        from crewgraph.tools.function_tool import Tool

        options: dict[str, Any] = {"result_as_answer": self.result_as_answer,
                                   "max_usage_count": self.max_usage_count,
                                   "current_usage_count": self.current_usage_count,
                                   "tool_failure_policy": self.tool_failure_policy}
        if self.args_schema is not None:
            options["args_schema"] = self.args_schema
        if self.result_schema is not None:
            options["result_schema"] = self.result_schema
        if self.cache_function is not None:
            options["cache_function"] = self.cache_function
        return Tool(name=self.name, description=self.description, func=self.func, **options)
