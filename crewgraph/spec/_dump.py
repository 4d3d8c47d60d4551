"""JSON dumps of definitions that hold functions and objects JSON cannot carry.

``Task.model_dump(mode="json")`` / ``Agent.model_dump(mode="json")`` are how
users log their definitions. Guardrails, callbacks, models and memories are
functions or live objects; in a JSON dump each becomes its name (a function's
``module:qualname``, an object's class and model) and a warning says the dump
cannot rebuild it. Tools dump as their own JSON (``BaseTool`` serializes itself).

The fields say so with ``Annotated`` markers (:data:`JSON_NAMED`, :data:`JSON_TOOLS`,
:data:`JSON_CLASS_NAME`) rather than ``@field_serializer``: the decorator's module costs
1.5 ms of ``from crewgraph import Agent, ...`` (issue 18's import budget); the markers
build the same pydantic-core serializer when the schema is first built.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["JSON_CLASS_NAME", "JSON_NAMED", "JSON_TOOLS", "JsonAs", "named_for_json", "tools_for_json"]


def _name(value: Any) -> str:
    if inspect.isroutine(value) or inspect.isclass(value):
        module = getattr(value, "__module__", "") or ""
        qual = getattr(value, "__qualname__", None) or getattr(value, "__name__", None) or repr(value)
        return f"{module}:{qual}" if module else str(qual)
    model = getattr(value, "model", None)
    kind = type(value).__name__
    return f"{kind}(model={model!r})" if isinstance(model, str) else kind


def named_for_json(value: Any, owner: str) -> Any:
    """``value`` as JSON can hold it: plain data as is, a function or object as its name."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list | tuple):
        return [named_for_json(v, owner) for v in value]
    name = _name(value)
    warnings.warn(
        f"{owner}: {name} is not JSON data; the dump names it but cannot rebuild it",
        UserWarning,
        stacklevel=2,
    )
    return name


def tools_for_json(tools: list[Any], owner: str) -> list[Any]:
    """Each tool's own JSON dump; a tool holding something JSON cannot carry (a client, a
    connection) is named instead, with a warning."""
    out: list[Any] = []
    for tool in tools:
        try:
            out.append(tool.model_dump(mode="json"))
        except Exception as exc:
            warnings.warn(
                f"{owner}: tool {getattr(tool, 'name', tool)!r} cannot be dumped as JSON ({exc}); "
                "the dump names it",
                UserWarning,
                stacklevel=2,
            )
            out.append({"name": getattr(tool, "name", str(tool)), "tool_type": _name(type(tool))})
    return out


class JsonAs:
    """``Annotated`` marker: in JSON mode the field is dumped by ``function(model, value)``
    (what ``@field_serializer(name, when_used="json")`` on a method does)."""

    __slots__ = ("function",)

    def __init__(self, function: Callable[[Any, Any], Any]) -> None:
        self.function = function

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        schema = handler(source)
        schema["serialization"] = core_schema.plain_serializer_function_ser_schema(
            self.function, is_field_serializer=True, when_used="json"
        )
        return schema


def _owner(model: Any) -> str:
    """How warnings name the definition being dumped: ``Agent 'Researcher'``, ``Task 'write'``."""
    label = getattr(model, "role", None)
    if label is None and hasattr(model, "display_name"):
        label = model.display_name()
    return f"{type(model).__name__} {label!r}"


JSON_NAMED = JsonAs(lambda model, value: named_for_json(value, _owner(model)))
"""A function or live object (model client, memory, callback) dumps as its name, with a warning."""
JSON_TOOLS = JsonAs(lambda model, tools: tools_for_json(tools, _owner(model)))
"""A list of tools dumps as each tool's own JSON (named, with a warning, when it cannot)."""
JSON_CLASS_NAME = JsonAs(lambda model, cls: None if cls is None else f"{cls.__module__}:{cls.__qualname__}")
"""A model class dumps as ``module:qualname`` (that names it fully: no warning)."""
