"""Custom models as CrewAI users write them: a subclass of ``LLM`` (or ``BaseLLM``) that
overrides ``call()`` — or only ``acall()`` — answers every caller, with no request sent;
and ``LLM``'s CrewAI fields reach the provider as CrewAI sends them.

The local OpenAI-compatible server stands in for the provider: a subclass pointed at it
must leave it untouched (its ``chat_requests`` stay empty), a stock ``LLM`` must reach it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from crewgraph import LLM, Agent, Crew, Task
from crewgraph.llm import BaseLLM
from crewgraph.testing import FakeEmbedder, OpenAICompatServer


@pytest.fixture(scope="module")
def provider() -> Iterator[OpenAICompatServer]:
    with OpenAICompatServer(default="from the provider") as srv:
        yield srv


class MockLLM(LLM):
    """CrewAI's usual mock: the stock class, with ``call`` answering from a list."""

    def __init__(self, replies: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.replies = list(replies)
        self.prompts: list[Any] = []

    def call(self, messages: Any, tools: Any = None, callbacks: Any = None, available_functions: Any = None,
             from_task: Any = None, from_agent: Any = None, response_model: Any = None) -> Any:
        self.prompts.append(messages)
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]


def _mock(provider: OpenAICompatServer, *replies: str) -> MockLLM:
    return MockLLM(list(replies), model="gpt-4o-mini", base_url=provider.base_url, api_key="sk-test")


def _crew(llm: BaseLLM, **crew: Any) -> Crew:
    agent = Agent(role="Writer", goal="write", backstory="b", llm=llm)
    return Crew(agents=[agent], tasks=[Task(description="Say hi", expected_output="a greeting", agent=agent)],
                **crew)


def test_an_llm_subclass_overriding_call_answers_a_crew_with_no_request(provider: OpenAICompatServer) -> None:
    before = len(provider.chat_requests)
    llm = _mock(provider, "hello from the mock")
    result = _crew(llm).kickoff()
    assert result.raw == "hello from the mock"
    assert llm.prompts and "Say hi" in json.dumps(llm.prompts[0])
    assert len(provider.chat_requests) == before
    assert llm.get_token_usage_summary().successful_requests == len(llm.prompts)


def test_super_call_reaches_the_provider_once(provider: OpenAICompatServer) -> None:
    class Wrapped(LLM):
        seen = 0

        def call(self, messages: Any, tools: Any = None, callbacks: Any = None, available_functions: Any = None,
                 from_task: Any = None, from_agent: Any = None, response_model: Any = None) -> Any:
            type(self).seen += 1
            return "wrapped: " + super().call(messages, tools, callbacks, available_functions)

    before = len(provider.chat_requests)
    llm = Wrapped(model="gpt-4o-mini", base_url=provider.base_url, api_key="sk-test")
    assert _crew(llm).kickoff().raw == "wrapped: from the provider"
    assert Wrapped.seen == 1 and len(provider.chat_requests) == before + 1


def test_a_base_llm_overriding_only_acall_in_crewais_form() -> None:
    class AsyncOnly(BaseLLM):
        def __init__(self) -> None:
            super().__init__(model="async-only")
            self.who: list[Any] = []

        async def acall(self, messages: Any, tools: Any = None, callbacks: Any = None,
                        available_functions: Any = None, from_task: Any = None, from_agent: Any = None,
                        response_model: Any = None) -> Any:
            self.who.append((from_agent.role if from_agent else None, tools))
            return "async answer"

    llm = AsyncOnly()
    assert _crew(llm).kickoff().raw == "async answer"
    assert llm.who[0][0] == "Writer"
    assert llm.call("hi") == "async answer"


def test_planning_and_text_guardrails_use_the_override(provider: OpenAICompatServer) -> None:
    planner = _mock(provider, json.dumps({"list_of_plans_per_task": [{"task_number": 1, "task": "Say hi", "plan": "just greet"}]}))
    judge = _mock(provider, "first draft", json.dumps({"valid": True, "feedback": ""}), "unused")
    agent = Agent(role="Writer", goal="write", backstory="b", llm=judge)
    task = Task(description="Say hi", expected_output="a greeting", agent=agent, guardrail="Must be a greeting")
    before = len(provider.chat_requests)
    result = Crew(agents=[agent], tasks=[task], planning=True, planning_llm=planner).kickoff()
    assert result.raw == "first draft"
    assert planner.prompts and len(judge.prompts) == 2  # the answer, then the guardrail's verdict
    assert len(provider.chat_requests) == before


def test_memory_analysis_uses_the_override(provider: OpenAICompatServer, tmp_path: Path) -> None:
    from crewgraph.memory import Memory

    analysis = {"suggested_scope": "/", "categories": ["greeting"], "importance": 0.9,
                "extracted_metadata": {}}
    llm = _mock(provider, json.dumps(analysis))
    memory = Memory(storage=str(tmp_path / "m"), embedder=FakeEmbedder(), llm=llm)
    record = memory.remember("Ada said hello")
    assert record is not None and record.categories == ["greeting"]
    assert any("Ada said hello" in json.dumps(p) for p in llm.prompts)


class Verdict(BaseModel):
    ok: bool


def test_crewai_fields_are_sent_as_crewai_sends_them(provider: OpenAICompatServer) -> None:
    llm = LLM(model="gpt-4o", base_url=provider.base_url, api_key="sk-test", top_p=0.5, n=1, stop=["END"],
              seed=7, presence_penalty=0.1, frequency_penalty=0.2, logit_bias={42: -100}, logprobs=True,
              top_logprobs=2, response_format=Verdict, reasoning_effort="low", max_tokens=10,
              max_completion_tokens=50, additional_params={"vendor_flag": "on"}, temperature=0.3)
    assert (llm.top_p, llm.seed, llm.stop, llm.reasoning_effort) == (0.5, 7, ["END"], "low")
    llm.call("hi")
    body = provider.chat_requests[-1]
    expected = {"top_p": 0.5, "n": 1, "stop": ["END"], "seed": 7, "presence_penalty": 0.1,
                "frequency_penalty": 0.2, "logit_bias": {"42": -100}, "logprobs": True, "top_logprobs": 2,
                "reasoning_effort": "low", "max_completion_tokens": 50, "temperature": 0.3,
                "vendor_flag": "on"}
    assert {k: body.get(k) for k in expected} == expected
    assert "max_tokens" not in body  # CrewAI sends max_completion_tokens instead
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "Verdict", "schema": Verdict.model_json_schema()}}


def test_usage_summary_capabilities_and_callbacks(provider: OpenAICompatServer) -> None:
    class Logger:
        def __init__(self) -> None:
            self.events: list[tuple[str, Any]] = []

        def log_success_event(self, kwargs: Any, response_obj: Any, start_time: Any, end_time: Any) -> None:
            self.events.append((kwargs["model"], response_obj["usage"]["total_tokens"]))

    logger = Logger()
    llm = LLM(model="gpt-4o", base_url=provider.base_url, api_key="sk-test", callbacks=[logger])
    assert llm.get_token_usage_summary().total_tokens == 0
    llm.call("one")
    llm.call("two")
    usage = llm.get_token_usage_summary()
    assert usage.successful_requests == 2 and usage.total_tokens > 0
    assert [e[0] for e in logger.events] == ["gpt-4o", "gpt-4o"] and logger.events[0][1] > 0
    assert llm.supports_function_calling() and llm.supports_multimodal()
    assert not LLM(model="ollama/phi3").supports_multimodal()
    assert LLM(model="gpt-4o").get_context_window_size() == 128_000
    assert LLM(model="mine", context_window_size=2048).get_context_window_size() == 2048
    assert LLM(model="gpt-4o", provider="groq").provider == "groq"


def test_fields_we_do_not_implement_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="interceptor"):
        LLM(model="gpt-4o", interceptor=object())
    with pytest.raises(ValueError, match="reasoning_effort must be one of"):
        LLM(model="gpt-4o", reasoning_effort="max")
    with pytest.raises(TypeError, match="response_format must be"):
        LLM(model="gpt-4o", response_format="json")
    with pytest.raises(TypeError, match=r"callbacks\[0\]"):
        LLM(model="gpt-4o", callbacks=[42])
