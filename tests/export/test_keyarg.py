"""Which argument labels a tool call, and how it is shortened."""

from __future__ import annotations

import pytest

from crewgraph.export.keyarg import call_arguments, format_key_arg, key_argument
from crewgraph.llm.types import ToolCall


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"max_results": 5, "query": "rust async"}, ("query", "rust async")),
        ({"limit": 3, "URL": "https://x.org"}, ("URL", "https://x.org")),
        ({"depth": 2, "note": "second", "title": "first"}, ("note", "second")),  # first text argument
        ({"n": 3, "flag": True}, ("n", 3)),  # no text: the first argument
        ({"query": "", "path": "a.py"}, ("path", "a.py")),  # empty values do not identify a call
        ({}, None),
        (None, None),
    ],
)
def test_key_argument(args: dict[str, object] | None, expected: tuple[str, object] | None) -> None:
    assert key_argument(args) == expected


@pytest.mark.parametrize(
    ("name", "value", "text"),
    [
        ("query", "rust   async\nruntimes", '"rust async runtimes"'),
        ("query", "x" * 50, '"' + "x" * 27 + '…"'),
        ("path", "src/crewgraph/export/very/deep/module_name.py", "…port/very/deep/module_name.py"),
        ("file_path", "a.py", "a.py"),
        ("url", "https://www.example.com/docs/page", "example.com/docs/page"),
        ("n", 42, "42"),
        ("ids", [1, 2, 3], "[1, 2, 3]"),
        ("spec", {"b": 1, "a": "é"}, '{"a": "é", "b": 1}'),
    ],
)
def test_format_key_arg(name: str, value: object, text: str) -> None:
    assert format_key_arg(name, value) == text
    assert len(format_key_arg(name, value)) <= 30


def test_call_arguments_from_record_or_node() -> None:
    assert call_arguments({"args": {"q": 1}}) == {"q": 1}

    class Node:
        call = ToolCall(id="c1", name="search", arguments='{"query": "owls"}')

    assert call_arguments({}, Node()) == {"query": "owls"}
    Node.call = ToolCall(id="c2", name="search", arguments="not json")
    assert call_arguments({}, Node()) is None
    assert call_arguments({}) is None
