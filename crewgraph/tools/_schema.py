"""Argument schemas: built from signatures, narrowed, converted from JSON Schema.

The model sees a tool's arguments as JSON Schema and its calls are validated
against a pydantic model, so every tool needs one. Writing it by hand is
optional: it is derived from ``_run``'s (or the decorated function's)
signature, and tools built from a JSON Schema (LangChain, MCP-style) get a
model derived from that schema so bad fields are named the same way.
"""

from __future__ import annotations

import inspect
import typing
import weakref
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

__all__ = ["json_schema_model", "narrow_schema", "schema_from_callable", "spec_parameters"]

_SKIPPED_KINDS = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def _model_name(name: str) -> str:
    cleaned = "".join(part.capitalize() for part in _words(name))
    return f"{cleaned or 'Tool'}Schema"


def _words(name: str) -> list[str]:
    out, buf = [], ""
    for ch in name:
        if ch.isalnum():
            buf += ch
        elif buf:
            out.append(buf)
            buf = ""
    if buf:
        out.append(buf)
    return out


def schema_from_callable(fn: Callable[..., Any], name: str, *, skip_first: bool = False) -> type[BaseModel]:
    """A pydantic model of ``fn``'s keyword-callable parameters.

    Annotations are resolved with ``get_type_hints`` (so ``from __future__
    import annotations`` works); unannotated parameters accept anything;
    ``*args``/``**kwargs`` are left out (a ``_run(**kwargs)`` tool gets an
    open schema that keeps extra arguments). Without ``**kwargs`` an argument
    the function does not take is refused (``additionalProperties: false``):
    dropping it silently would run the tool with a default the model did not
    mean (``limit`` sent for ``top_k``) instead of telling it the right name.
    """
    sig = inspect.signature(fn)
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:  # unresolvable forward refs: fall back to raw annotations
        hints = {}
    params = list(sig.parameters.values())
    if skip_first and params:
        params = params[1:]
    fields: dict[str, Any] = {}
    open_kwargs = False
    for p in params:
        if p.kind in _SKIPPED_KINDS:
            open_kwargs = open_kwargs or p.kind is inspect.Parameter.VAR_KEYWORD
            continue
        annotation = hints.get(p.name, p.annotation)
        if annotation is inspect.Parameter.empty or isinstance(annotation, str):
            annotation = Any
        default = ... if p.default is inspect.Parameter.empty else p.default
        fields[p.name] = (annotation, default)
    config = ConfigDict(extra="allow" if open_kwargs else "forbid", arbitrary_types_allowed=True)
    model: type[BaseModel] = create_model(_model_name(name), __config__=config, **fields)
    return model


def narrow_schema(schema: type[BaseModel], fixed: set[str], name: str) -> type[BaseModel]:
    """A copy of ``schema`` without the ``fixed`` fields (set when the tool was built).

    This is how ``FileReadTool(file_path="a.txt")`` stops asking the model for
    a path: the argument is fixed, so the model is never offered it.
    """
    fields: dict[str, Any] = {}
    for field_name, info in schema.model_fields.items():
        if field_name in fixed:
            continue
        fields[field_name] = (info.annotation, info)
    model: type[BaseModel] = create_model(
        f"Fixed{_model_name(name)}", __config__=ConfigDict(extra="ignore"), **fields
    )
    return model


_JSON_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "null": type(None),
}


def _json_type(prop: dict[str, Any]) -> Any:
    if prop.get("enum"):
        return Literal[tuple(prop["enum"])]
    for key in ("anyOf", "oneOf"):
        if key in prop:
            options = [_json_type(p) for p in prop[key] if isinstance(p, dict)]
            return _union(options) if options else Any
    kind = prop.get("type")
    if isinstance(kind, list):
        return _union([_json_type({**prop, "type": k}) for k in kind])
    if kind == "array":
        items = prop.get("items")
        return list[_json_type(items)] if isinstance(items, dict) else list[Any]  # type: ignore[misc]
    if kind == "object":
        return dict[str, Any]
    return _JSON_TYPES.get(str(kind), Any)


def _union(options: list[Any]) -> Any:
    if len(options) == 1:
        return options[0]
    result = options[0]
    for opt in options[1:]:
        result = result | opt if opt is not Any and result is not Any else Any
    return result


def json_schema_model(schema: dict[str, Any] | None, name: str) -> type[BaseModel]:
    """A lenient pydantic model for validating calls against a JSON Schema object.

    Covers what tool schemas use in practice (scalar types, enums, arrays,
    nested objects kept as dicts, nullable unions, defaults, descriptions);
    extra properties are kept unless ``additionalProperties`` is false.
    """
    schema = schema or {}
    props: dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    fields: dict[str, Any] = {}
    for prop_name, prop in props.items():
        prop = prop if isinstance(prop, dict) else {}
        annotation = _json_type(prop)
        if prop_name in required:
            default: Any = ...
        else:
            default = prop.get("default")
            if default is None:
                annotation = annotation | None if annotation is not Any else Any
        fields[prop_name] = (annotation, Field(default, description=prop.get("description")))
    extra: Literal["allow", "forbid"] = "forbid" if schema.get("additionalProperties") is False else "allow"
    model: type[BaseModel] = create_model(
        _model_name(name), __config__=ConfigDict(extra=extra), **fields
    )
    return model


_SPEC_CACHE: weakref.WeakKeyDictionary[type[BaseModel], dict[str, Any]] = weakref.WeakKeyDictionary()


def spec_parameters(schema: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema the model is shown: an object with properties, titles dropped.

    Built once per schema class (pydantic's JSON Schema generation was ~0.5 ms a call, and
    every model turn that offers the tool asks for it); a tool given another ``args_schema``
    has another class, so it gets its own entry. The dict is shared: read it, don't change it.
    """
    cached = _SPEC_CACHE.get(schema)
    if cached is None:
        cached = _SPEC_CACHE[schema] = _build_spec_parameters(schema)
    return cached


def _build_spec_parameters(schema: type[BaseModel]) -> dict[str, Any]:
    params = schema.model_json_schema()
    params.pop("title", None)
    params.setdefault("type", "object")
    params.setdefault("properties", {})
    for prop in params["properties"].values():
        if isinstance(prop, dict):
            prop.pop("title", None)
    return params
