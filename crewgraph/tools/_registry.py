"""Rebuilding tools from data: the type registry and ``coerce_tool``.

A checkpoint or YAML config stores a tool as its ``model_dump(mode="json")``
(which carries ``tool_type``, ``module.qualname`` of its class). Subclasses
register themselves when defined (``BaseTool.__init_subclass__``); a type not
yet registered is imported from its module first.
"""

from __future__ import annotations

import importlib
from typing import Any

from crewgraph.tools.base_tool import _TOOL_TYPE_REGISTRY, BaseTool

__all__ = ["coerce_tool", "registered_tool_types", "tool_from_dict"]


def registered_tool_types() -> dict[str, type[BaseTool]]:
    """A copy of the registry: ``module.qualname`` -> tool class."""
    return dict(_TOOL_TYPE_REGISTRY)


def _import_ref(ref: str) -> Any:
    module_name, _, qualname = ref.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _tool_class(key: str) -> type[BaseTool]:
    cls = _TOOL_TYPE_REGISTRY.get(key)
    if cls is None:
        module_name = key.rsplit(".", 1)[0]
        while module_name and cls is None:
            try:
                importlib.import_module(module_name)
            except ImportError:
                module_name = module_name.rsplit(".", 1)[0] if "." in module_name else ""
                continue
            cls = _TOOL_TYPE_REGISTRY.get(key)
            break
    if cls is None:
        raise ValueError(f"unknown tool type {key!r}: import the module that defines it first")
    return cls


def tool_from_dict(data: dict[str, Any]) -> BaseTool:
    """Rebuild a tool from its JSON dump. Reference fields (schemas, functions) are
    re-imported when importable; otherwise they fall back to the class defaults."""
    payload = dict(data)
    key = payload.pop("tool_type", None)
    if not isinstance(key, str):
        raise ValueError("a serialized tool needs a 'tool_type' key (module.qualname of its class)")
    cls = _tool_class(key)
    for field_name in ("args_schema", "result_schema", "cache_function", "func"):
        value = payload.get(field_name)
        if value is None:
            payload.pop(field_name, None)
        elif isinstance(value, str):
            try:
                obj = _import_ref(value)
                # a decorated function's module attribute is the Tool itself; take its function
                payload[field_name] = obj.func if isinstance(obj, BaseTool) and hasattr(obj, "func") else obj
            except (ImportError, AttributeError, ValueError):
                if field_name == "func":
                    raise ValueError(
                        f"cannot rebuild tool {payload.get('name')!r}: function {value!r} is not importable"
                    ) from None
                payload.pop(field_name)
    return cls.model_validate(payload)


def coerce_tool(value: Any) -> BaseTool:
    """A BaseTool from a tool, a serialized tool dict, or a LangChain-style tool."""
    if isinstance(value, BaseTool):
        return value
    if isinstance(value, dict) and "tool_type" in value:
        return tool_from_dict(value)
    from crewgraph.tools.adapters import from_langchain, looks_like_langchain_tool

    if looks_like_langchain_tool(value):
        return from_langchain(value)
    raise TypeError(
        f"{type(value).__name__} is not a tool: use a BaseTool subclass, the @tool decorator, "
        "or a LangChain-style tool"
    )
