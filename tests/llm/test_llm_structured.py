"""Structured output through instructor against the local server: modes, fallback, re-asks."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, field_validator

from crewgraph.errors import LLMError, StructuredOutputError
from crewgraph.llm import ToolSpec
from crewgraph.testing import OpenAICompatServer, ServerReply


class City(BaseModel):
    name: str
    population: int

    @field_validator("name")
    @classmethod
    def _capitalised(cls, value: str) -> str:
        if not value[:1].isupper():
            raise ValueError("name must start with a capital letter")
        return value


def test_tools_mode_sends_a_forced_tool_call(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(ServerReply.structured({"name": "Lyon", "population": 500000}))
    reply = make_llm().call("biggest city?", response_model=City)
    assert reply.parsed == City(name="Lyon", population=500000)
    assert json.loads(reply.content or "") == {"name": "Lyon", "population": 500000}
    body = server.chat_requests[0]
    assert body["tool_choice"]["function"]["name"] == "City"
    assert body["tools"][0]["function"]["name"] == "City"
    assert reply.usage.successful_requests == 1 and reply.usage.total_tokens > 0


def test_validation_error_is_fed_back_then_success(
    server: OpenAICompatServer, make_llm: Any
) -> None:
    server.add(
        ServerReply.structured({"name": "lyon", "population": "many"}),
        ServerReply.structured({"name": "Lyon", "population": 500000}),
    )
    reply = make_llm().call("city?", response_model=City)
    assert reply.parsed == City(name="Lyon", population=500000)
    assert len(server.chat_requests) == 2
    feedback = json.dumps(server.chat_requests[1]["messages"])
    assert "capital letter" in feedback and "population" in feedback
    # Both completions cost tokens and both are counted.
    assert reply.usage.successful_requests == 2
    first_prompt = server.chat_requests[0]
    assert reply.usage.prompt_tokens > len(json.dumps(first_prompt["messages"])) // 4


def test_validation_retries_exhausted(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(*[ServerReply.structured({"name": "lyon", "population": 1})] * 2)
    with pytest.raises(StructuredOutputError) as info:
        make_llm(validation_retries=1).call("city?", response_model=City)
    message = str(info.value)
    assert "City" in message and "capital letter" in message
    assert len(server.chat_requests) == 2


def test_auto_falls_back_to_json_schema_when_tools_are_rejected(make_llm: Any) -> None:
    with OpenAICompatServer(supports_tools=False) as srv:
        srv.add(
            ServerReply.structured({"name": "Oslo", "population": 700000}),
            ServerReply.structured({"name": "Bergen", "population": 290000}),
        )
        llm = make_llm(base_url=srv.base_url)
        assert llm.call("city?", response_model=City).parsed == City(name="Oslo", population=700000)
        first, second = srv.chat_requests
        assert "tools" in first and "tools" not in second
        assert second["response_format"]["type"] == "json_schema"
        assert llm.supports_function_calling() is False
        # Learned: the next call goes straight to JSON mode.
        assert llm.call("city?", response_model=City).parsed.name == "Bergen"  # type: ignore[union-attr]
        assert "tools" not in srv.chat_requests[2]


def test_auto_falls_back_to_markdown_json_when_schema_is_rejected(make_llm: Any) -> None:
    with OpenAICompatServer(supports_tools=False, supports_json_schema=False,
                            supports_json_object=False) as srv:
        srv.add(ServerReply.text('Sure:\n```json\n{"name": "Rome", "population": 2800000}\n```'))
        llm = make_llm(base_url=srv.base_url)
        assert llm.call("city?", response_model=City).parsed == City(name="Rome", population=2800000)
        last = srv.chat_requests[-1]
        assert "response_format" not in last and "tools" not in last
        assert len(srv.chat_requests) == 4  # tools, json_schema and json_object rejected, then plain text


def test_explicit_tools_mode_does_not_fall_back(make_llm: Any) -> None:
    with OpenAICompatServer(supports_tools=False) as srv:
        with pytest.raises(LLMError, match="does not support tools") as info:
            make_llm(base_url=srv.base_url, structured_mode="tools").call("c", response_model=City)
        assert info.value.status_code == 400
        assert len(srv.chat_requests) == 1


def test_explicit_json_mode(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(ServerReply.structured({"name": "Kyoto", "population": 1400000}))
    reply = make_llm(structured_mode="json").call("city?", response_model=City)
    assert reply.parsed is not None and reply.parsed.name == "Kyoto"
    body = server.chat_requests[0]
    assert "tools" not in body and "response_format" not in body
    assert "json" in json.dumps(body["messages"]).lower()


def test_http_errors_in_structured_calls_are_retried(
    server: OpenAICompatServer, make_llm: Any
) -> None:
    server.add(
        ServerReply.error(429, "slow down", retry_after="0"),
        ServerReply.structured({"name": "Nice", "population": 340000}),
    )
    events: list[Any] = []
    reply = make_llm().call("city?", response_model=City, emit=events.append)
    assert reply.parsed is not None and reply.parsed.name == "Nice"
    assert len(events) == 1 and "429" in events[0].error


def test_structured_401_is_an_llm_error(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(ServerReply.error(401, "bad key"))
    with pytest.raises(LLMError, match="bad key") as info:
        make_llm().call("city?", response_model=City)
    assert info.value.status_code == 401


def test_tools_and_response_model_together(server: OpenAICompatServer, make_llm: Any) -> None:
    tool = ToolSpec(name="lookup")
    server.add(
        ServerReply.tool_calls(("lookup", {})),
        ServerReply.text('{"name": "Turin", "population": 870000}'),
    )
    llm = make_llm()
    first = llm.call("c", tools=[tool], response_model=City)
    assert first.tool_calls and first.parsed is None
    second = llm.call("c", tools=[tool], response_model=City)
    assert second.parsed == City(name="Turin", population=870000)


def test_handled_failures_are_not_logged_as_errors(
    make_llm: Any, caplog: pytest.LogCaptureFixture
) -> None:
    with OpenAICompatServer(supports_tools=False) as srv, caplog.at_level("DEBUG"):
        srv.add(ServerReply.structured({"name": "Oslo", "population": 1}))
        make_llm(base_url=srv.base_url).call("city?", response_model=City)
    instructor_records = [r for r in caplog.records if r.name.startswith("instructor")]
    assert instructor_records, "instructor's messages are kept at DEBUG"
    assert all(r.levelname == "DEBUG" for r in instructor_records)
