"""The tools seed (shared/seeds/000_*.txt), tool-level snippets, run as written
(``crewai`` read as ``crewgraph``). The agent-level ones are in test_seed_snippets_crews.py.
"""

from __future__ import annotations

import asyncio

import pytest

# --- tool-level snippets, as written ---------------------------------------------


def test_subclassing_base_tool() -> None:
    from typing import Type  # noqa: UP035 - as in the seed

    from pydantic import BaseModel, Field

    from crewgraph.tools import BaseTool

    class MyToolInput(BaseModel):
        """Input schema for MyCustomTool."""

        argument: str = Field(..., description="Description of the argument.")

    class MyCustomTool(BaseTool):
        name: str = "Name of my tool"
        description: str = "What this tool does. It's vital for effective utilization."
        args_schema: Type[BaseModel] = MyToolInput  # noqa: UP006 - as in the seed

        def _run(self, argument: str) -> str:
            # Your tool's logic here
            return "Tool's result"

    t = MyCustomTool()
    assert t.run(argument="x") == "Tool's result"
    assert t.to_spec().parameters["required"] == ["argument"]


def _inventory_tool_classes() -> tuple[type, type, type]:
    from pydantic import BaseModel

    from crewgraph.tools import BaseTool

    class InventoryResult(BaseModel):
        sku: str
        quantity: int
        needs_reorder: bool

    class InventoryTool(BaseTool):
        name: str = "Inventory Check"
        description: str = "Checks current stock for a product SKU."

        def _run(self, sku: str) -> InventoryResult:
            quantity = {"SKU-123": 14, "SKU-456": 0}.get(sku, 0)
            return InventoryResult(sku=sku, quantity=quantity, needs_reorder=quantity < 5)

    class MarkdownInventoryTool(BaseTool):
        name: str = "Inventory Check"
        description: str = "Checks current stock for a product SKU."

        def _run(self, sku: str) -> InventoryResult:
            quantity = {"SKU-123": 14, "SKU-456": 0}.get(sku, 0)
            return InventoryResult(sku=sku, quantity=quantity, needs_reorder=quantity < 5)

        def format_output_for_agent(self, raw_result: object) -> str:
            result = InventoryResult.model_validate(raw_result)
            status = "reorder needed" if result.needs_reorder else "stock is healthy"
            return f"{result.sku}: {result.quantity} units. {status}."

    return InventoryResult, InventoryTool, MarkdownInventoryTool


def test_typed_tool_output(capsys: pytest.CaptureFixture[str]) -> None:
    InventoryResult, InventoryTool, _ = _inventory_tool_classes()
    tool = InventoryTool()

    # Direct calls receive the raw Pydantic object.
    result = tool.run(sku="SKU-123")
    print(result.quantity)

    assert capsys.readouterr().out == "14\n"
    assert isinstance(result, InventoryResult)
    assert tool.format_output_for_agent(result) == '{"sku":"SKU-123","quantity":14,"needs_reorder":false}'


def test_format_output_for_agent_override() -> None:
    InventoryResult, _, MarkdownInventoryTool = _inventory_tool_classes()
    tool = MarkdownInventoryTool()
    raw = tool.run(sku="SKU-456")
    assert isinstance(raw, InventoryResult)
    assert tool.format_output_for_agent(raw) == "SKU-456: 0 units. reorder needed."


def test_async_tool_decorator(fast_sleep: None) -> None:
    from crewgraph.tools import tool

    @tool("fetch_data_async")
    async def fetch_data_async(query: str) -> str:
        """Asynchronously fetch data based on the query."""
        # Simulate async operation
        await asyncio.sleep(1)
        return f"Data retrieved for {query}"

    assert fetch_data_async.name == "fetch_data_async"
    assert fetch_data_async.run(query="ai") == "Data retrieved for ai"


def _async_custom_tool_class() -> type:
    from crewgraph.tools import BaseTool

    class AsyncCustomTool(BaseTool):
        name: str = "async_custom_tool"
        description: str = "An asynchronous custom tool"

        async def _run(self, query: str = "") -> str:
            """Asynchronously run the tool"""
            # Your async implementation here
            await asyncio.sleep(1)
            return f"Processed {query} asynchronously"

    return AsyncCustomTool


def test_async_custom_tool_class(fast_sleep: None) -> None:
    tool = _async_custom_tool_class()()
    assert tool.run(query="x") == "Processed x asynchronously"
    assert asyncio.run(tool.arun()) == "Processed  asynchronously"


def test_tool_decorator_with_name() -> None:
    from crewgraph.tools import tool

    @tool("Name of my tool")
    def my_tool(question: str) -> str:
        """Clear description for what this tool is useful for, your agent will need this information to use it."""
        # Function logic here
        return "Result from your custom tool"

    assert my_tool.name == "Name of my tool"
    assert my_tool.description.startswith("Clear description")
    assert my_tool.run(question="?") == "Result from your custom tool"
