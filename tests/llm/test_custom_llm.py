"""A CrewAI-style custom LLM (a BaseLLM subclass implementing only ``call()``) works wherever
the engine uses a model: crews (with tools), flows, memory analysis and planning."""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, BaseLLM, Crew, Task
from crewgraph.errors import LLMError
from crewgraph.flow import Flow, listen, start
from crewgraph.memory import Memory
from crewgraph.testing import FakeEmbedder, OpenAICompatServer, ServerReply
from crewgraph.tools import tool


class CustomLLM(BaseLLM):
    """CrewAI's documented custom-LLM pattern, verbatim in shape: a blocking HTTP call in call()."""

    def __init__(self, model: str, api_key: str, endpoint: str, temperature: float | None = None):
        super().__init__(model=model, temperature=temperature)
        self.api_key = api_key
        self.endpoint = endpoint
        self.threads: list[str] = []

    def call(
        self,
        messages: str | list[dict[str, str]],
        tools: list[dict] | None = None,  # type: ignore[type-arg]
        callbacks: list[Any] | None = None,
        available_functions: dict[str, Any] | None = None,
    ) -> str | Any:
        self.threads.append(threading.current_thread().name)
        if isinstance(messages, str):
            messages = [{"role": "user", "content": messages}]
        payload: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": self.temperature}
        if tools and self.supports_function_calling():
            payload["tools"] = tools
        request = urllib.request.Request(
            self.endpoint, data=json.dumps(payload).encode(),
            headers={"Authorization": f"Bearer {self.api_key}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            result = json.load(response)
        message = result["choices"][0]["message"]
        if message.get("tool_calls") and not available_functions:
            return message["tool_calls"]  # handed back to the executor, as CrewAI's LLM does
        return message["content"]

    def supports_function_calling(self) -> bool:
        return True

    def supports_stop_words(self) -> bool:
        return False

    def get_context_window_size(self) -> int:
        return 8192


@pytest.fixture
def server() -> Any:
    with OpenAICompatServer() as srv:
        yield srv


def _custom(server: OpenAICompatServer) -> CustomLLM:
    return CustomLLM(model="my-custom-model", api_key="k-custom", endpoint=server.base_url + "/chat/completions",
                     temperature=0.3)


def test_the_base_class_keeps_crewais_constructor_and_hooks(server: OpenAICompatServer) -> None:
    llm = _custom(server)
    assert (llm.model, llm.temperature, llm.stop) == ("my-custom-model", 0.3, [])
    assert not llm.supports_stop_words() and llm.get_context_window_size() == 8192

    class Neither(BaseLLM):
        pass

    with pytest.raises(TypeError, match=r"must implement call\(messages"):
        Neither()


def test_custom_llm_in_a_crew_with_a_tool(server: OpenAICompatServer) -> None:
    @tool
    def shout(text: str) -> str:
        """Upper-case a text."""
        return text.upper()

    server.add(ServerReply.tool_calls(("shout", {"text": "hello"})), "Final: HELLO")
    llm = _custom(server)
    agent = Agent(role="Shouter", goal="Shout", backstory="Loud", llm=llm, tools=[shout])
    out = Crew(agents=[agent], tasks=[Task(description="Shout hello", expected_output="loud", agent=agent)]).kickoff()
    assert out.raw == "Final: HELLO"
    first, second = server.chat_requests
    assert first["model"] == "my-custom-model" and first["temperature"] == 0.3
    assert [t["function"]["name"] for t in first["tools"]] == ["shout"]  # tools reach call() in OpenAI form
    assert second["messages"][-1]["role"] == "tool" and second["messages"][-1]["content"] == "HELLO"
    assert server.log[0].headers["authorization"] == "Bearer k-custom"
    # call() ran in worker threads, never on the event loop's thread.
    assert llm.threads and threading.main_thread().name not in llm.threads
    assert out.token_usage.successful_requests == 2


def test_custom_llm_in_a_flow(server: OpenAICompatServer) -> None:
    server.add("an outline", "a post")
    llm = _custom(server)

    class Pipeline(Flow[dict]):  # type: ignore[type-arg]
        @start()
        def outline(self) -> str:
            agent = Agent(role="Planner", goal="Plan", backstory="Tidy", llm=llm)
            task = Task(description="Outline {topic}", expected_output="an outline", agent=agent)
            return Crew(agents=[agent], tasks=[task]).kickoff(inputs={"topic": self.state["topic"]}).raw

        @listen(outline)
        async def post(self, outline: str) -> str:
            agent = Agent(role="Writer", goal="Write", backstory="Terse", llm=llm)
            task = Task(description=f"Write from: {outline}", expected_output="a post", agent=agent)
            return (await Crew(agents=[agent], tasks=[task]).kickoff_async()).raw

    assert Pipeline().kickoff(inputs={"topic": "owls"}) == "a post"
    assert "Outline owls" in json.dumps(server.chat_requests[0]["messages"])
    assert "Write from: an outline" in json.dumps(server.chat_requests[1]["messages"])


def test_custom_llm_analyses_memory_saves(server: OpenAICompatServer, tmp_path: Path) -> None:
    # The schema is asked for in the prompt; the text reply (fenced, as small models write it) is parsed.
    analysis = {"suggested_scope": "/project/db", "categories": ["database"], "importance": 0.9}
    server.add("```json\n" + json.dumps(analysis) + "\n```")
    memory = Memory(storage=str(tmp_path / "mem"), embedder=FakeEmbedder(), llm=_custom(server))
    try:
        record = memory.remember("We chose PostgreSQL for the user database.")
    finally:
        memory.close()
    assert record is not None
    assert (record.scope, record.categories, record.importance) == ("/project/db", ["database"], 0.9)
    prompt = json.dumps(server.chat_requests[0]["messages"])
    assert "suggested_scope" in prompt and "JSON schema" in prompt


def test_custom_llm_plans_a_crew_and_a_bad_reply_is_sent_back(server: OpenAICompatServer) -> None:
    plans = {"list_of_plans_per_task": [{"task_number": 1, "task": "research", "plan": "Search, then summarise."}]}
    server.add("I will plan now.", json.dumps(plans), "notes")  # first reply has no JSON: fed back once
    llm = _custom(server)
    agent = Agent(role="Researcher", goal="Research", backstory="Curious", llm=llm)
    task = Task(description="Research owls", expected_output="notes", agent=agent)
    out = Crew(agents=[agent], tasks=[task], planning=True, planning_llm=llm).kickoff()
    assert out.raw == "notes"
    retry = server.chat_requests[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "I will plan now."}
    assert "could not be used" in retry[-1]["content"]
    assert "Search, then summarise." in json.dumps(server.chat_requests[2]["messages"])


def test_what_call_returns_is_checked() -> None:
    class Odd(BaseLLM):
        def call(self, messages: Any, tools: Any = None, callbacks: Any = None,
                 available_functions: Any = None) -> Any:
            return 42

    with pytest.raises(LLMError, match=r"Odd.call\(\) returned int; it must return the reply text"):
        asyncio.run(Odd(model="odd").acall([{"role": "user", "content": "hi"}]))  # as the engine calls it


def test_a_call_without_tools_parameter_is_not_offered_tools() -> None:
    class Plain(BaseLLM):
        def call(self, messages: Any) -> str:  # type: ignore[override]
            return "plain"

        def supports_function_calling(self) -> bool:
            return False

    @tool
    def noop() -> str:
        """Does nothing."""
        return ""

    agent = Agent(role="R", goal="G", backstory="B", llm=Plain(model="plain"), tools=[noop])
    out = Crew(agents=[agent], tasks=[Task(description="Do", expected_output="x", agent=agent)]).kickoff()
    assert out.raw == "plain"
