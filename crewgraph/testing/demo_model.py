"""The demo model behind ``--llm fake`` / ``CREWGRAPH_LLM=fake``: a project tried offline does something.

It cannot reason, but it exercises what a crew is made of, so a demo run shows
the project's shape: in each conversation it calls every tool it is offered
once (all in one turn, with arguments built from each tool's JSON schema),
which in a hierarchical crew means the manager delegates once per task (never
from inside a delegated task, so delegation cannot recurse); then it answers.
A structured output is filled from its schema with non-empty values (strings
name their field, numbers are 1, lists get one item), so a flow that loops over
a list has items to loop over. Every text answer starts with
:data:`DEMO_PREFIX`, saying it is the demo model.
"""

from __future__ import annotations

import enum
import re
import types
import typing
from typing import Any

from pydantic import BaseModel

from crewgraph.testing.fake_llm import FakeLLM, FakeRequest, FakeToolCall

__all__ = ["DEMO_MODEL_NAME", "DEMO_PREFIX", "demo_arguments", "demo_instance", "demo_model", "is_demo_model"]

DEMO_MODEL_NAME = "fake"
DEMO_PREFIX = "(fake answer from crewgraph --llm fake)"
"""The start of every text answer, so an output says where it came from."""

_DELEGATED = "Your best answer to your coworker asking you this"  # the delegated task's expected output
_DELEGATION_TOOLS = ("delegate_work_to_coworker", "ask_question_to_coworker")  # as the model sees them
_MAX_DEPTH = 4


def demo_model() -> FakeLLM:
    """A new demo model (see the module doc); ``is_demo_model(model)`` tells it from other fakes."""
    model = FakeLLM(default=_reply, model=DEMO_MODEL_NAME)
    model.demo_model = True  # type: ignore[attr-defined]  # runs on it are marked in the store and UI
    return model


def is_demo_model(llm: object) -> bool:
    """Whether ``llm`` is the demo model (``--llm fake``)."""
    return getattr(llm, "demo_model", False) is True


def _called(messages: list[dict[str, Any]]) -> set[str]:
    names: set[str] = set()
    for message in messages:
        for call in message.get("tool_calls") or ():
            function = call.get("function", call) if isinstance(call, dict) else call
            name = function.get("name") if isinstance(function, dict) else getattr(function, "name", None)
            if name:
                names.add(str(name))
        if message.get("role") == "tool" and message.get("name"):
            names.add(str(message["name"]))
    return names


def _delegated(messages: list[dict[str, Any]]) -> bool:
    return any(_DELEGATED in str(m.get("content") or "") for m in messages)


def _plain(name: str) -> str:
    return name.strip().lower().replace(" ", "_")


def _reply(request: FakeRequest) -> Any:
    called = _called(request.messages)
    delegated = _delegated(request.messages)
    calls = [
        FakeToolCall(name=spec.name, args=demo_arguments(spec.parameters))
        for spec in request.tools
        if spec.name not in called and not (delegated and _plain(spec.name) in _DELEGATION_TOOLS)
    ]
    if calls:
        return calls
    if request.response_model is not None:
        return demo_instance(request.response_model)
    return f"{DEMO_PREFIX} {_topic(request.messages)}"


def _topic(messages: list[dict[str, Any]]) -> str:
    last = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    lines = str((last or {}).get("content") or "").strip().splitlines()
    topic = lines[0].strip().removeprefix("Current Task:").strip() if lines else "the task"
    return topic if len(topic) <= 100 else topic[:97] + "..."


# -- arguments from a JSON schema ----------------------------------------------------------
def demo_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments for a tool whose parameters are ``schema``: every property, required or not."""
    defs = schema.get("$defs", {})
    properties = schema.get("properties") or {}
    return {name: _json_value(name, prop, defs, 0) for name, prop in properties.items()}


def _json_value(name: str, prop: dict[str, Any], defs: dict[str, Any], depth: int) -> Any:
    if "$ref" in prop:
        prop = defs.get(str(prop["$ref"]).rsplit("/", 1)[-1], {})
    if "default" in prop and prop["default"] not in (None, "", [], {}):
        return prop["default"]
    if prop.get("enum"):
        return prop["enum"][0]
    if "const" in prop:
        return prop["const"]
    options = prop.get("anyOf") or prop.get("oneOf")
    if options:
        usable = [o for o in options if o.get("type") != "null"] or options
        return _json_value(name, usable[0], defs, depth)
    kind = prop.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "integer":
        return max(1, int(prop.get("minimum", 1)))
    if kind == "number":
        return float(max(1, prop.get("minimum", 1)))
    if kind == "boolean":
        return True
    if kind == "array":
        item = prop.get("items") or {"type": "string"}
        return [_json_value(name, item, defs, depth + 1)] if depth < _MAX_DEPTH else []
    if kind == "object" or "properties" in prop:
        if depth >= _MAX_DEPTH:
            return {}
        return {k: _json_value(k, v, defs, depth + 1) for k, v in (prop.get("properties") or {}).items()}
    return _demo_string(name, str(prop.get("description") or ""))


def _demo_string(name: str, description: str) -> str:
    lowered = name.lower()
    one_of = re.search(r"one of (.+)$", description)
    if lowered == "coworker" and one_of:
        return one_of.group(1).split(", ")[0].strip()
    if "url" in lowered or "website" in lowered:
        return "https://example.com"
    if lowered in ("task", "question"):
        return f"demo {lowered} from the demo model: do your part of the task"
    return f"demo {name}"


# -- structured outputs from a pydantic model ----------------------------------------------
def demo_instance(model: type[BaseModel], depth: int = 0) -> BaseModel:
    """An instance of ``model`` with every field filled with a non-empty value."""
    data = {name: _py_value(name, info.annotation, depth) for name, info in model.model_fields.items()}
    try:
        return model.model_validate(data)
    except ValueError:
        return model.model_construct(**data)


def _py_value(name: str, annotation: Any, depth: int) -> Any:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _py_value(name, args[0], depth)
    if origin is typing.Union or origin is types.UnionType:
        options = [a for a in args if a is not type(None)]
        return _py_value(name, options[0], depth) if options else None
    if origin is typing.Literal:
        return args[0] if args else None
    if origin in (list, set, frozenset, tuple) or annotation in (list, set, frozenset, tuple):
        if origin is tuple and args and args[-1] is not Ellipsis:
            return [_py_value(name, a, depth) for a in args]
        item = args[0] if args else str
        return [_py_value(name, item, depth + 1)] if depth < _MAX_DEPTH else []
    if origin is dict or annotation is dict:
        value = args[1] if len(args) == 2 else str
        return {f"demo {name}": _py_value(name, value, depth + 1)} if depth < _MAX_DEPTH else {}
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return demo_instance(annotation, depth + 1) if depth < _MAX_DEPTH else None
        if issubclass(annotation, enum.Enum):
            return next(iter(annotation)).value
        if issubclass(annotation, bool):
            return True
        if issubclass(annotation, int):
            return 1
        if issubclass(annotation, float):
            return 1.0
        if issubclass(annotation, str):
            return f"demo {name}"
    if annotation is Any:
        return f"demo {name}"
    return None
