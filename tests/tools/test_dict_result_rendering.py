"""A tool returning a dict: the agent reads it as CrewAI renders it (``str()`` of the value)."""

from __future__ import annotations

import json

from crewgraph import Agent, Crew, Task
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import tool


@tool("Stock lookup")
def stock(sku: str) -> dict:
    """How many units of a SKU are in stock."""
    return {"sku": sku, "quantity": 3, "tags": ["blue"]}


def test_the_agent_reads_a_dict_result_as_crewai_renders_it() -> None:
    llm = FakeLLM([FakeToolCall(name="stock_lookup", args={"sku": "A-1"}), "3 in stock"])
    agent = Agent(role="Clerk", goal="count", backstory="b", llm=llm, tools=[stock])
    crew = Crew(agents=[agent], tasks=[Task(description="Stock of A-1?", expected_output="a count", agent=agent)])
    assert crew.kickoff().raw == "3 in stock"
    tool_messages = [m for m in llm.calls[1].messages if m["role"] == "tool"]
    assert tool_messages and tool_messages[0]["content"] == "{'sku': 'A-1', 'quantity': 3, 'tags': ['blue']}"
    assert json.dumps(stock.run(sku="B")) == '{"sku": "B", "quantity": 3, "tags": ["blue"]}'  # Python gets the dict
