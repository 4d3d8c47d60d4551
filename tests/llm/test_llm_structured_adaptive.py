"""Structured output that adapts to what the model does, not only to what the server rejects:
objects read from replies that ignored the mode, moving on when a reply holds nothing
parseable, and the mode that worked remembered per endpoint and model."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from crewgraph.errors import StructuredOutputError
from crewgraph.llm import LLM
from crewgraph.llm.structured import (
    NoStructuredReply,
    forget_modes,
    mode_plan,
    remember_mode,
    remembered_mode,
)
from crewgraph.testing import OpenAICompatServer, ServerReply

OSLO = {"name": "Oslo", "population": 709000}


class City(BaseModel):
    name: str
    population: int


def llm_for(server: OpenAICompatServer, **kw: Any) -> LLM:
    return LLM(model="qwen2.5-0.5b", base_url=server.base_url, api_key="k", retry_initial_delay=0.001, **kw)


def kinds(server: OpenAICompatServer) -> list[str]:
    """The mode of each structured request the server received."""
    out = []
    for body in server.chat_requests:
        fmt = (body.get("response_format") or {}).get("type")
        out.append("tools" if "tool_choice" in body else fmt or "text")
    return out


@pytest.mark.parametrize("fmt", ["hermes", "json", "mistral", "prose"])
def test_a_forced_tool_call_answered_in_text_is_read_from_the_text(fmt: str) -> None:
    with OpenAICompatServer([ServerReply.structured(OSLO)], tool_calls_as_text=fmt) as server:
        llm = llm_for(server)
        reply = llm.call("Largest city of Norway?", response_model=City)
        assert reply.parsed == City(**OSLO) and type(reply.parsed) is City
        assert kinds(server) == ["tools"]  # one call, no re-ask, no other mode
        assert reply.usage.successful_requests == 1
        assert llm.supports_function_calling()  # the server does take tools: agents keep them


def test_a_reply_with_nothing_parseable_moves_on_and_later_calls_start_at_the_mode_that_worked() -> None:
    replies = [ServerReply.text("Oslo is the largest city, with about 709 thousand people."),  # tools: prose
               ServerReply.structured(OSLO),                                                   # json_schema
               ServerReply.structured({"name": "Bergen", "population": 285000})]
    with OpenAICompatServer(replies) as server:
        first = llm_for(server).call("Largest city?", response_model=City)
        second = llm_for(server).call("Second city?", response_model=City)  # a new client: same model
        assert first.parsed == City(**OSLO) and second.parsed is not None and second.parsed.name == "Bergen"
        assert kinds(server) == ["tools", "json_schema", "json_schema"]
        assert first.usage.successful_requests == 2  # the ignored attempt is counted too
        assert remembered_mode(f"{server.base_url}|qwen2.5-0.5b") == "json_schema"


def test_every_mode_is_tried_before_the_plain_text_one_gets_its_re_asks() -> None:
    prose = ServerReply.text("I am not sure, sorry.")
    with OpenAICompatServer([prose, prose, prose, prose, ServerReply.json(OSLO)]) as server:
        reply = llm_for(server).call("Largest city?", response_model=City)
        assert reply.parsed == City(**OSLO)
        assert kinds(server) == ["tools", "json_schema", "json_object", "text", "text"]
        assert "I am not sure" in json.dumps(server.chat_requests[-1]["messages"])  # the re-ask


def test_validation_errors_are_still_fed_back_within_a_mode() -> None:
    with OpenAICompatServer([ServerReply.structured({"name": "Oslo", "population": "many"}),
                             ServerReply.structured(OSLO)]) as server:
        reply = llm_for(server).call("Largest city?", response_model=City)
        assert reply.parsed == City(**OSLO)
        assert kinds(server) == ["tools", "tools"]
        assert "population" in json.dumps(server.chat_requests[1]["messages"])


def test_a_remembered_mode_that_stops_working_is_left_for_the_next() -> None:
    with OpenAICompatServer([ServerReply.text("no idea"), ServerReply.structured(OSLO)]) as server:
        key = f"{server.base_url}|qwen2.5-0.5b"
        remember_mode(key, "json_object")
        reply = llm_for(server).call("Largest city?", response_model=City)
        assert reply.parsed == City(**OSLO)
        assert kinds(server) == ["json_object", "tools"]
        assert remembered_mode(key) == "tools"


def test_an_explicit_mode_does_not_move_on() -> None:
    with OpenAICompatServer(default=ServerReply.text("no idea")) as server:
        with pytest.raises(StructuredOutputError, match="after 3 attempt") as info:
            llm_for(server, structured_mode="tools").call("Largest city?", response_model=City)
        assert not isinstance(info.value, NoStructuredReply)
        assert kinds(server) == ["tools"] * 3


def test_json_object_mode_sends_the_response_format() -> None:
    with OpenAICompatServer([ServerReply.structured(OSLO)]) as server:
        reply = llm_for(server, structured_mode="json_object").call("Largest city?", response_model=City)
        assert reply.parsed == City(**OSLO) and kinds(server) == ["json_object"]


def test_mode_plan_and_forgetting() -> None:
    modes = ["tools", "json_schema", "json_object", "json"]
    remember_mode("http://a/v1|m", "json_object")
    remember_mode("http://b/v1|m", "tools")
    assert mode_plan("http://a/v1|m", modes) == ["json_object", "tools", "json_schema", "json"]
    assert mode_plan("http://a/v1|m", ["tools", "json"]) == ["tools", "json"]  # not on offer
    assert mode_plan("http://c/v1|m", modes) == modes
    forget_modes("http://a/v1")
    assert remembered_mode("http://a/v1|m") is None and remembered_mode("http://b/v1|m") == "tools"
    forget_modes()
    assert remembered_mode("http://b/v1|m") is None
