"""Tools in CrewAI's ``LLM.call(messages, tools, callbacks, available_functions)``.

CrewAI users hand ``call`` OpenAI-style function schemas and, to have the call run the
function the model picks, a ``name -> function`` map. These helpers turn the schemas into
:class:`ToolSpec`s and run the first tool call that names an available function.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from crewgraph.errors import LLMError
from crewgraph.llm.types import ToolCall, ToolSpec

__all__ = ["run_available_function", "tool_specs"]


def tool_specs(tools: list[Any] | None) -> list[ToolSpec] | None:
    """``ToolSpec``s of ``tools``: ToolSpecs as they are, OpenAI function schemas converted."""
    if not tools:
        return None
    specs: list[ToolSpec] = []
    for index, tool in enumerate(tools):
        if isinstance(tool, ToolSpec):
            specs.append(tool)
            continue
        function = tool.get("function", tool) if isinstance(tool, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise TypeError(
                f"LLM.call(tools=...): tools[{index}] must be a ToolSpec or an OpenAI function schema "
                f"({{'type': 'function', 'function': {{'name': ..., 'parameters': ...}}}}), got {tool!r:.80}"
            )
        params = function.get("parameters") or {"type": "object", "properties": {}}
        specs.append(ToolSpec(name=function["name"], description=function.get("description") or "",
                              parameters=dict(params)))
    return specs


def run_available_function(calls: list[ToolCall], functions: Mapping[str, Any]) -> tuple[bool, Any]:
    """Run the first call whose name is in ``functions``: ``(True, result)``, or ``(False, None)``
    when the model called none of them (the caller then returns the reply and its tool calls)."""
    for call in calls:
        function = functions.get(call.name)
        if function is None:
            continue
        try:
            arguments = json.loads(call.arguments or "{}")
        except json.JSONDecodeError as exc:
            raise LLMError(f"the model called {call.name!r} with arguments that are not JSON: {exc}") from exc
        if not isinstance(arguments, dict):
            raise LLMError(f"the model called {call.name!r} with {type(arguments).__name__} arguments, not an object")
        return True, function(**arguments)
    return False, None
