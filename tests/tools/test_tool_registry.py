"""The tool type registry: serialized tools (checkpoints, configs) rebuild to the same class."""

from __future__ import annotations

import json

import pytest

from crewgraph.toolkit import FileReadTool
from crewgraph.tools import BaseTool, registered_tool_types, tool, tool_from_dict


class GreeterTool(BaseTool):
    name: str = "greeter"
    description: str = "Greets."
    greeting: str = "Hello"

    def _run(self, who: str) -> str:
        return f"{self.greeting}, {who}"


@tool("Shout")
def shout(text: str) -> str:
    """Shouts the text."""
    return text.upper()


def test_subclasses_register_themselves() -> None:
    types = registered_tool_types()
    assert types[f"{__name__}.GreeterTool"] is GreeterTool
    assert types["crewgraph.toolkit.file_read_tool.FileReadTool"] is FileReadTool


def test_round_trip_through_json() -> None:
    original = GreeterTool(greeting="Hi", max_usage_count=3)
    data = json.loads(json.dumps(original.model_dump(mode="json")))
    assert data["tool_type"] == f"{__name__}.GreeterTool"
    rebuilt = tool_from_dict(data)
    assert isinstance(rebuilt, GreeterTool)
    assert rebuilt.greeting == "Hi"
    assert rebuilt.max_usage_count == 3
    assert rebuilt.run(who="Ana") == "Hi, Ana"
    assert list(rebuilt.args_schema.model_fields) == ["who"]


def test_decorated_function_round_trip() -> None:
    data = json.loads(json.dumps(shout.model_dump(mode="json")))
    rebuilt = tool_from_dict(data)
    assert rebuilt.name == "Shout"
    assert rebuilt.run(text="hey") == "HEY"


def test_toolkit_tool_round_trip_keeps_fixed_arguments() -> None:
    rebuilt = tool_from_dict(FileReadTool(file_path="notes.txt").model_dump(mode="json"))
    assert isinstance(rebuilt, FileReadTool)
    assert "file_path" not in rebuilt.args_schema.model_fields


def test_unknown_type_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown tool type"):
        tool_from_dict({"tool_type": "nowhere.Missing", "name": "x", "description": "y"})
    with pytest.raises(ValueError, match="tool_type"):
        tool_from_dict({"name": "x"})
