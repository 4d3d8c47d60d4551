"""Adapters: duck-typed LangChain tools and callables with a JSON Schema."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from crewgraph.tools import BaseTool, coerce_tool, from_function_schema, from_langchain


class SearchArgs(BaseModel):
    query: str
    limit: int = 3


class FakeLangChainTool:
    """Shaped like langchain_core.tools.BaseTool, without LangChain."""

    name = "search"
    description = "Searches the web."
    args_schema = SearchArgs
    return_direct = True

    def __init__(self) -> None:
        self.received: list[Any] = []

    def invoke(self, tool_input: Any) -> str:
        self.received.append(tool_input)
        return f"results for {tool_input['query']} (limit {tool_input.get('limit')})"


class ArgsOnlyTool:
    name = "weather"
    description = "Gets the weather."
    args = {"city": {"type": "string"}}

    def _run(self, city: str) -> str:
        return f"sunny in {city}"


def test_langchain_tool_with_pydantic_schema() -> None:
    original = FakeLangChainTool()
    adapted = from_langchain(original)
    assert isinstance(adapted, BaseTool)
    assert adapted.name == "search"
    assert adapted.result_as_answer is True
    assert adapted.args_schema is SearchArgs
    assert adapted.to_spec().parameters["required"] == ["query"]
    kwargs = adapted.validate_arguments({"query": "crewgraph"})
    assert adapted.run(**kwargs) == "results for crewgraph (limit 3)"
    assert original.received == [{"query": "crewgraph", "limit": 3}]


def test_langchain_tool_with_only_args_and_private_run() -> None:
    adapted = from_langchain(ArgsOnlyTool())
    assert adapted.to_spec().parameters["properties"] == {"city": {"type": "string"}}
    with pytest.raises(ValidationError):
        adapted.validate_arguments({})
    assert adapted.run(city="Oslo") == "sunny in Oslo"


def test_from_langchain_rejects_other_objects() -> None:
    with pytest.raises(TypeError, match="LangChain"):
        from_langchain(object())


def test_coerce_tool_adapts_langchain_like_objects() -> None:
    assert isinstance(coerce_tool(FakeLangChainTool()), BaseTool)
    with pytest.raises(TypeError, match="not a tool"):
        coerce_tool("search")


def test_callable_with_json_schema() -> None:
    def lookup(sku: str, count: int = 1, tags: list[str] | None = None) -> dict[str, Any]:
        return {"sku": sku, "count": count, "tags": tags}

    schema = {
        "type": "object",
        "properties": {
            "sku": {"type": "string", "description": "Product id"},
            "count": {"type": "integer", "default": 1},
            "tags": {"type": "array", "items": {"type": "string"}},
            "mode": {"enum": ["fast", "slow"]},
        },
        "required": ["sku"],
        "additionalProperties": False,
    }
    t = from_function_schema(lookup, schema, description="Looks up a product.")
    assert t.to_spec().parameters == schema  # shown to the model exactly as given
    kwargs = t.validate_arguments({"sku": "A", "count": "2", "tags": ["x"]})
    assert kwargs == {"sku": "A", "count": 2, "tags": ["x"], "mode": None}
    with pytest.raises(ValidationError) as info:
        t.validate_arguments({"sku": "A", "mode": "medium"})
    assert info.value.errors()[0]["loc"] == ("mode",)
    with pytest.raises(ValidationError):
        t.validate_arguments({"sku": "A", "surprise": 1})


def test_callable_with_json_schema_async_and_description_required() -> None:
    async def ping(host: str) -> str:
        await asyncio.sleep(0)
        return f"pong {host}"

    t = from_function_schema(ping, {"properties": {"host": {"type": "string"}}}, description="Pings.")
    assert t.is_async
    assert t.run(host="h") == "pong h"
    with pytest.raises(ValueError, match="needs a description"):
        from_function_schema(lambda: None, {})
