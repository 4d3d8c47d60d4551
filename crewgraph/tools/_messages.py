"""The texts a model reads when its tool call cannot be served as asked.

Each one says what was wrong and what to do next, because the model's only
way to recover is to read this and call again differently.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

__all__ = [
    "exception_message",
    "invalid_json_message",
    "unknown_tool_message",
    "usage_limit_message",
    "validation_message",
]


def unknown_tool_message(name: str, available: Sequence[str]) -> str:
    if available:
        names = ", ".join(available)
        return (
            f"Tool {name!r} does not exist. Available tools: {names}. "
            "Call one of them by its exact name."
        )
    return f"Tool {name!r} does not exist, and no tools are available: answer without tools."


def invalid_json_message(name: str, problem: str, parameters: dict[str, Any]) -> str:
    return (
        f"Invalid arguments for tool {name!r}: {problem}. "
        f"Send a JSON object matching this schema: {_schema_text(parameters)}"
    )


def validation_message(name: str, error: ValidationError, parameters: dict[str, Any]) -> str:
    problems = []
    for item in error.errors(include_url=False):
        loc = ".".join(str(p) for p in item.get("loc", ())) or "(arguments)"
        problems.append(f"field {loc!r}: {item.get('msg', 'invalid')}")
    return (
        f"Invalid arguments for tool {name!r}: {'; '.join(problems)}. "
        f"Fix them and call the tool again. Expected schema: {_schema_text(parameters)}"
    )


def usage_limit_message(name: str, limit: int | None) -> str:
    return (
        f"Tool {name!r} has reached its usage limit ({limit} uses) and cannot be used again. "
        "Continue without it."
    )


def exception_message(name: str, exc: BaseException) -> str:
    detail = str(exc).strip() or "(no message)"
    return f"Error executing tool {name!r}: {type(exc).__name__}: {detail}"


def _schema_text(parameters: dict[str, Any]) -> str:
    text = json.dumps(parameters, ensure_ascii=False, default=str)
    return text if len(text) <= 1500 else text[:1500] + "..."
