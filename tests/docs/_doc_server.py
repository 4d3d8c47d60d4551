"""The local model the docs' examples talk to: any chat request gets a fitting answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from crewgraph.testing._server_data import ServerReply

ROOT = Path(__file__).resolve().parents[2]


def example_of(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> Any:
    """A small value valid for a JSON Schema as pydantic writes them (enough for doc examples)."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return example_of(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [s for s in schema[key] if s.get("type") != "null"] or schema[key]
            return example_of(options[0], defs)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    if "default" in schema:
        return schema["default"]
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "object":
        props = schema.get("properties", {})
        return {name: example_of(sub, defs) for name, sub in props.items()}
    if kind == "array":
        return [example_of(schema.get("items", {"type": "string"}), defs)]
    return {"string": "example", "integer": 1, "number": 1.0, "boolean": True}.get(kind, "example")


def answer(body: dict[str, Any]) -> ServerReply:
    """Any chat request: a structured one gets an example of its schema, others text."""
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return ServerReply.structured(example_of(fmt["json_schema"]["schema"]))
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") == "function":
        name = choice["function"]["name"]
        tool = next(t for t in body.get("tools", []) if t["function"]["name"] == name)
        return ServerReply.structured(example_of(tool["function"]["parameters"]))
    if fmt.get("type") == "json_object":
        return ServerReply.text(json.dumps({"result": "example"}))
    return ServerReply.text("A short answer from the local test model.")
