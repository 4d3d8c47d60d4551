"""``LLM.call`` as CrewAI users call it: a string back, OpenAI tool schemas, available_functions."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from crewgraph.errors import LLMError
from crewgraph.llm import LLMText
from crewgraph.testing import FakeLLM, FakeToolCall, OpenAICompatServer, ServerReply

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def test_call_returns_a_string_that_carries_the_turn(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(ServerReply.text("Paris is sunny", usage={"prompt_tokens": 7, "completion_tokens": 3}))
    reply = make_llm().call("weather?")
    assert isinstance(reply, str) and isinstance(reply, LLMText)
    assert reply == "Paris is sunny" and reply.upper() == "PARIS IS SUNNY" and "sunny" in reply
    assert reply.content == "Paris is sunny" and reply.usage.total_tokens == 10
    assert pickle.loads(pickle.dumps(reply)).usage.total_tokens == 10


def test_openai_tool_schemas_are_sent_and_available_functions_run(
    server: OpenAICompatServer, make_llm: Any
) -> None:
    server.add(ServerReply.tool_calls(("get_weather", {"city": "Paris"})))
    seen: list[str] = []

    def get_weather(city: str) -> str:
        seen.append(city)
        return f"18C in {city}"

    result = make_llm().call("weather in Paris?", tools=[WEATHER], available_functions={"get_weather": get_weather})
    assert result == "18C in Paris" and seen == ["Paris"]
    sent = server.chat_requests[0]["tools"][0]["function"]
    assert sent["name"] == "get_weather" and sent["parameters"]["required"] == ["city"]


def test_tool_calls_without_available_functions_come_back_on_the_text(make_llm: Any,
                                                                     server: OpenAICompatServer) -> None:
    server.add(ServerReply.tool_calls(("get_weather", {"city": "Oslo"})))
    reply = make_llm().call("weather in Oslo?", tools=[WEATHER])
    assert reply == "" and reply.tool_calls[0].name == "get_weather"
    assert reply.tool_calls[0].parsed_arguments() == {"city": "Oslo"}


def test_a_call_to_a_function_not_offered_returns_the_reply() -> None:
    llm = FakeLLM([FakeToolCall("other", {"x": 1})])
    reply = llm.call("hi", tools=[WEATHER], available_functions={"get_weather": lambda city: city})
    assert isinstance(reply, LLMText) and reply.tool_calls[0].name == "other"


def test_broken_arguments_name_the_function() -> None:
    llm = FakeLLM([FakeToolCall("get_weather", '{"city": ')])
    with pytest.raises(LLMError, match=r"get_weather.*not JSON"):
        llm.call("hi", tools=[WEATHER], available_functions={"get_weather": lambda city: city})


def test_bad_tools_and_callbacks_are_refused() -> None:
    with pytest.raises(TypeError, match=r"tools\[0\] must be a ToolSpec or an OpenAI function schema"):
        FakeLLM(["x"]).call("hi", tools=["get_weather"])
    with pytest.raises(TypeError, match=r"callbacks\[0\] is .*a callback is a function"):
        FakeLLM(["x"]).call("hi", callbacks=[object()])


def test_structured_call_keeps_the_parsed_model() -> None:
    from pydantic import BaseModel

    class Verdict(BaseModel):
        ok: bool

    reply = FakeLLM(['{"ok": true}']).call("judge", response_model=Verdict)
    assert reply.parsed == Verdict(ok=True) and reply == '{"ok": true}'
