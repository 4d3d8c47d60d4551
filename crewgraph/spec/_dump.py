"""JSON dumps of definitions that hold functions and objects JSON cannot carry.

``Task.model_dump(mode="json")`` / ``Agent.model_dump(mode="json")`` are how
users log their definitions. Guardrails, callbacks, models and memories are
functions or live objects; in a JSON dump each becomes its name (a function's
``module:qualname``, an object's class and model) and a warning says the dump
cannot rebuild it. Tools dump as their own JSON (``BaseTool`` serializes itself).
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

__all__ = ["named_for_json", "tools_for_json"]


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
