"""LangGraph and OpenAI Agents SDK agents as crew members (CrewAI's agent adapters), each with
its framework installed, talking to crewgraph's local OpenAI-compatible server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from crewgraph import LLM, Agent, Crew, Task
from crewgraph.agents.agent_adapters.base_agent_adapter import BaseAgentAdapter
from crewgraph.agents.agent_adapters.base_converter_adapter import BaseConverterAdapter
from crewgraph.agents.agent_adapters.base_tool_adapter import BaseToolAdapter
from crewgraph.agents.agent_adapters.langgraph.langgraph_adapter import LangGraphAgentAdapter
from crewgraph.agents.agent_adapters.openai_agents.openai_adapter import OpenAIAgentAdapter
from crewgraph.testing import FakeLLM, OpenAICompatServer, ServerReply
from crewgraph.tools import tool


@pytest.fixture(autouse=True)
def _frameworks_installed() -> None:
    """Skips at setup rather than at import (function scope, so the module is not made one xdist group), so collecting the suite does not import langgraph or agents
    (the adapters import their framework only when built)."""
    pytest.importorskip("langgraph.prebuilt")
    pytest.importorskip("agents")


@tool("Weather Lookup")
def weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


class Forecast(BaseModel):
    city: str
    sky: str


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAICompatServer]:
    with OpenAICompatServer() as srv:
        yield srv


@pytest.fixture(autouse=True)
def _no_sdk_tracing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")  # the SDK would export traces to OpenAI


def _script(server: OpenAICompatServer, *replies: Any) -> int:
    """Queue the replies; returns how many chat requests came before them."""
    assert server.remaining == 0
    server.add(*replies)
    return len(server.chat_requests)


def _local(server: OpenAICompatServer) -> LLM:
    return LLM(model="local-model", base_url=server.base_url, api_key="sk-local")


def _two_tasks(adapted: Any, writer_llm: Any, **task_kw: Any) -> Crew:
    writer = Agent(role="Writer", goal="Write", llm=writer_llm)
    research = Task(name="research", description="Find the weather in {city}", expected_output="the weather",
                    agent=adapted, **task_kw)
    summary = Task(name="summary", description="Summarise", expected_output="one line", agent=writer)
    return Crew(agents=[adapted, writer], tasks=[research, summary])


@pytest.mark.parametrize("framework", ["langgraph", "openai-agents"])
def test_adapted_agent_runs_its_task_with_crewgraph_tools(server: OpenAICompatServer, framework: str) -> None:
    start = _script(server, ServerReply.tool_calls(("Weather_Lookup", {"city": "Oslo"})), "It is sunny in Oslo.")
    if framework == "langgraph":
        adapted: Any = LangGraphAgentAdapter(role="Researcher", goal="Find weather", backstory="Meteorologist",
                                             tools=[weather], llm=_local(server))
    else:
        adapted = OpenAIAgentAdapter(role="Researcher", goal="Find weather", backstory="Meteorologist",
                                     tools=[weather], model=_local(server))
    writer_llm = FakeLLM(["Oslo: sunny."])
    out = _two_tasks(adapted, writer_llm).kickoff(inputs={"city": "Oslo"})

    assert out.tasks_output[0].raw == "It is sunny in Oslo." and out.tasks_output[0].agent == "Researcher"
    assert out.raw == "Oslo: sunny."
    assert "It is sunny in Oslo." in writer_llm.calls[0].prompt  # the next task's context
    first, second = server.chat_requests[start:]
    assert first["model"] == "local-model"
    prompt = json.dumps(first["messages"])
    assert "You are Researcher" in prompt and "Find the weather in Oslo" in prompt
    assert [t["function"]["name"] for t in first["tools"]] == ["Weather_Lookup"]
    assert "sunny in Oslo" in json.dumps(second["messages"])  # the crewgraph tool ran
    # the adapted agent is a node of crewgraph's graph, like any agent
    record = out.graph.record("t1_research.agent")
    assert record.kind == "external_agent" and record.status == "completed"


def test_structured_output_goes_through_the_convert_node(server: OpenAICompatServer) -> None:
    _script(server, 'Here you go: ```json\n{"city": "Oslo", "sky": "clear"}\n```')
    adapted = LangGraphAgentAdapter(role="Researcher", goal="Find weather", backstory="x", llm=_local(server))
    out = _two_tasks(adapted, FakeLLM(["done"]), output_pydantic=Forecast).kickoff(inputs={"city": "Oslo"})
    assert out.tasks_output[0].pydantic == Forecast(city="Oslo", sky="clear")
    system = json.dumps(server.chat_requests[-1]["messages"][0])
    assert "JSON schema" in system and "sky" in system


def test_the_base_classes_are_crewais_contract() -> None:
    assert issubclass(LangGraphAgentAdapter, BaseAgentAdapter) and issubclass(OpenAIAgentAdapter, BaseAgentAdapter)
    assert BaseToolAdapter.sanitize_tool_name("Weather Lookup") == "Weather_Lookup"
    assert BaseConverterAdapter._extract_json_from_text('text {"a": 1} more') == '{"a": 1}'

    class Echo(BaseAgentAdapter):
        def execute_task(self, task: Any, context: str | None = None, tools: list[Any] | None = None) -> str:
            return f"echo: {task.description}"

        def create_agent_executor(self, tools: list[Any] | None = None) -> None:
            return None

        def configure_tools(self, tools: list[Any] | None = None) -> None:
            return None

    echo = Echo(role="Echo", goal="Repeat", agent_config={"x": 1})
    assert echo.adapted_agent is True and echo._agent_config == {"x": 1}
    out = Crew(agents=[echo], tasks=[Task(description="hello", expected_output="same", agent=echo)]).kickoff()
    assert out.raw == "echo: hello"


def test_an_adapted_agent_delegates_to_a_crewgraph_agent(server: OpenAICompatServer) -> None:
    delegate = {"task": "write a haiku", "context": "about tea", "coworker": "Poet"}
    start = _script(server, ServerReply.tool_calls(("Delegate_work_to_coworker", delegate)), "The poet wrote it.")
    poet_llm = FakeLLM(["tea haiku"])
    poet = Agent(role="Poet", goal="Write", llm=poet_llm)
    boss = LangGraphAgentAdapter(role="Boss", goal="Delegate", backstory="b", llm=_local(server),
                                 allow_delegation=True)
    out = Crew(agents=[boss, poet], tasks=[Task(description="Get a haiku", expected_output="haiku", agent=boss)]).kickoff()
    assert out.raw == "The poet wrote it."
    assert [t["function"]["name"] for t in server.chat_requests[start]["tools"]] == [
        "Delegate_work_to_coworker", "Ask_question_to_coworker"]
    assert "write a haiku" in poet_llm.calls[0].prompt and "about tea" in poet_llm.calls[0].prompt
    assert "tea haiku" in json.dumps(server.chat_requests[start + 1]["messages"])  # the poet's answer came back
