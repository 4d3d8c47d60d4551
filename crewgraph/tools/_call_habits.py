"""Small models' tool-calling habits, recognised and answered in kind.

A 0.5-3B model running on a laptop calls tools the right way most of the time,
and in a few recurring wrong ways the rest: it sends the tool's JSON Schema back
as the arguments (``{"type": "object", "properties": {...}}``), wraps the
arguments once or twice under ``"arguments"`` / ``"parameters"``, or spells the
tool's name with another case or a ``functions.`` prefix. A generic validation
error ("field 'path': Field required") does not tell it what it did; these
helpers either repair the call when its intent is unambiguous (a wrapper, a
prefix), or answer with one short message that shows a filled-in example built
from the tool's schema (an echoed schema: running it would invent values).
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "example_arguments",
    "is_schema_echo",
    "schema_echo_message",
    "strip_name_prefix",
    "unwrap_arguments",
]

_WRAPPERS = ("arguments", "parameters", "args", "input", "kwargs", "tool_input")
_SCHEMA_KEYS = {"type", "properties", "required", "title", "description", "additionalProperties", "$defs"}
_PREFIX = re.compile(r"^(?:functions?|tools?|default_api|api)[.:/]\s*", re.I)


def strip_name_prefix(name: str) -> str:
    """``functions.list_files`` / ``tool:List files`` -> the bare name (unchanged otherwise)."""
    return _PREFIX.sub("", name.strip(), count=1)


def _as_dict(value: Any) -> dict[str, Any] | None:
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            loaded = json.loads(value)
        except ValueError:
            return None
        return loaded if isinstance(loaded, dict) else None
    return None


def unwrap_arguments(arguments: dict[str, Any], properties: set[str]) -> dict[str, Any]:
    """``{"arguments": {"parameters": {...}}}`` -> ``{...}``: a lone wrapper key that is not one of
    the tool's own parameters is peeled off, as often as it is nested (a JSON string inside
    counts too)."""
    current = arguments
    for _ in range(4):
        if len(current) != 1:
            break
        (key, value), = current.items()
        inner = _as_dict(value)
        if key not in _WRAPPERS or key in properties or inner is None:
            break
        current = inner
    return current


def is_schema_echo(arguments: dict[str, Any], schema: dict[str, Any]) -> bool:
    """True when ``arguments`` is a JSON Schema (the tool's own, or one like it) instead of values."""
    properties = set((schema.get("properties") or {}).keys())
    if "properties" in properties or "type" in properties:
        return False  # a tool that really takes such parameters
    keys = set(arguments)
    if not keys or not keys <= _SCHEMA_KEYS:
        return False
    return isinstance(arguments.get("properties"), dict) or arguments.get("type") == "object"


def _example_value(prop: dict[str, Any], name: str) -> Any:
    if "default" in prop and prop["default"] is not None:
        return prop["default"]
    if prop.get("enum"):
        return prop["enum"][0]
    kind = prop.get("type")
    if kind is None and isinstance(prop.get("anyOf"), list):
        kind = next((p.get("type") for p in prop["anyOf"] if p.get("type") not in (None, "null")), None)
    if kind == "integer":
        return 1
    if kind == "number":
        return 1.5
    if kind == "boolean":
        return True
    if kind == "array":
        return [_example_value(prop.get("items") or {"type": "string"}, name)]
    if kind == "object":
        return {}
    return f"<{name}>"


def example_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """A filled-in argument object for ``schema``: required parameters first, each with a value of
    its type (its default or first enum value when it has one)."""
    properties: dict[str, Any] = schema.get("properties") or {}
    required = [name for name in schema.get("required") or [] if name in properties]
    ordered = required + [name for name in properties if name not in required]
    return {name: _example_value(properties[name] or {}, name) for name in ordered[:8]}


def schema_echo_message(tool: str, schema: dict[str, Any]) -> str:
    """What the model reads after sending the schema as the arguments."""
    example = json.dumps(example_arguments(schema), ensure_ascii=False)
    return (
        f"You sent the JSON Schema of tool {tool!r} as its arguments; the tool was not run. "
        f"Call it again with real values for its parameters, for example: {example}"
    )
