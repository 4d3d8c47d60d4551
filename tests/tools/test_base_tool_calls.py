"""BaseTool called directly as CrewAI's is: run()/arun() validate against args_schema,
arun() uses the tool's own _arun, max_usage_count holds for direct calls, failure
messages carry their code, and a result that fails its result_schema is still delivered."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest
from pydantic import BaseModel, Field

from crewgraph import Agent, Crew, Task
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import BaseTool, ToolFailure, ToolFailureReason, tool


class PriceArgs(BaseModel):
    sku: str = Field(description="Product SKU")
    quantity: int = Field(default=1, ge=1)


class PriceTool(BaseTool):
    name: str = "Price"
    description: str = "Price of a quantity of a SKU."
    args_schema: type[BaseModel] = PriceArgs

    def _run(self, sku: str, quantity: int = 1) -> float:
        return 2.5 * quantity


def test_run_validates_keyword_arguments_against_the_schema() -> None:
    t = PriceTool()
    assert t.run(sku="A", quantity="4") == 10.0  # coerced as for a model's call
    with pytest.raises(ValueError, match=r"tool 'Price': invalid arguments: quantity: Input should be greater"):
        t.run(sku="A", quantity=0)
    with pytest.raises(ValueError, match="sku: Field required"):
        t.run(quantity=2)
    assert t.current_usage_count == 1  # rejected calls take no use


def test_run_drops_unknown_arguments_with_a_warning() -> None:
    with pytest.warns(UserWarning, match=r"tool 'Price': ignoring argument\(s\) 'colour': not in its args_schema"):
        assert PriceTool().run(sku="A", colour="red") == 2.5


def test_arun_uses_the_tools_own_arun() -> None:
    class Fetch(BaseTool):
        name: str = "Fetch"
        description: str = "Fetch a page."
        seen: list[str] = Field(default_factory=list)

        def _run(self, url: str) -> str:
            self.seen.append("sync")
            return "sync " + url

        async def _arun(self, url: str) -> str:
            self.seen.append(f"async on {threading.current_thread().name}")
            await asyncio.sleep(0)
            return "async " + url

    t = Fetch()
    assert asyncio.run(t.arun(url="x")) == "async x"
    assert t.run(url="y") == "sync y"
    assert t.seen == ["async on MainThread", "sync"]
    assert t.current_usage_count == 2


def test_arun_uses_the_tools_arun_inside_a_crew() -> None:
    class Fetch(BaseTool):
        name: str = "Fetch"
        description: str = "Fetch a page."

        def _run(self, url: str) -> str:
            raise AssertionError("the async path must be used")

        async def _arun(self, url: str) -> str:
            return "page " + url

    llm = FakeLLM([FakeToolCall("Fetch", {"url": "u"}), lambda r: "got " + r.messages[-1]["content"]])
    a = Agent(role="Reader", goal="Read", llm=llm, tools=[Fetch()])
    assert Crew(agents=[a], tasks=[Task(description="Read u", expected_output="text", agent=a)]).kickoff().raw == "got page u"


def test_max_usage_count_holds_for_direct_calls_and_resets() -> None:
    @tool("Lookup", max_usage_count=2)
    def lookup(key: str) -> str:
        """Look a key up."""
        return f"value of {key}"

    assert lookup.run(key="a") == "value of a"
    assert asyncio.run(lookup.arun(key="b")) == "value of b"
    limited = lookup.run(key="c")
    assert isinstance(limited, ToolFailure)
    assert limited.reason is ToolFailureReason.USAGE_LIMIT and limited.code == "usage_limit_exceeded"
    assert isinstance(asyncio.run(lookup.arun(key="c")), ToolFailure)
    assert lookup.current_usage_count == 2
    lookup.reset_usage_count()
    assert lookup.current_usage_count == 0 and lookup.run(key="d") == "value of d"


def test_agent_message_of_a_failure_includes_its_code() -> None:
    failure = ToolFailure(message="Quota used up", code="quota_exceeded")
    assert failure.as_agent_message() == "Quota used up [code: quota_exceeded]"
    assert ToolFailure(message="plain").as_agent_message() == "plain"
    assert ToolFailure(message="quota_exceeded: used up", code="quota_exceeded").as_agent_message() == (
        "quota_exceeded: used up"
    )


class Inventory(BaseModel):
    sku: str
    quantity: int


class InventoryTool(BaseTool):
    name: str = "Inventory"
    description: str = "Stock of a SKU."
    result_schema: type[BaseModel] | None = Inventory

    def _run(self, sku: str) -> Any:
        return {"sku": sku, "quantity": "many"}  # does not match Inventory


def test_a_result_failing_its_schema_warns_and_the_raw_value_is_used() -> None:
    t = InventoryTool()
    with pytest.warns(UserWarning, match=r"tool 'Inventory': its result does not match its result_schema Inventory"):
        text = t.format_output_for_agent(t.run(sku="A"))
    assert text == "{'sku': 'A', 'quantity': 'many'}"  # the raw value, rendered as CrewAI renders it
    good = t.format_output_for_agent({"sku": "A", "quantity": "3"})
    assert json.loads(good) == {"sku": "A", "quantity": 3}
