"""Misbehaving servers: every attempt is bounded, broken 200 replies are transient LLMErrors,
malformed usage counts as zero, and timed-out requests are not re-sent more than once."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

from crewgraph.errors import LLMError
from crewgraph.llm import LLM
from crewgraph.testing import OpenAICompatServer, ServerReply

MakeLLM = Callable[..., LLM]


def _retry_errors(llm: LLM, message: str = "hi") -> tuple[str | None, list[str]]:
    events: list[Any] = []
    reply = llm.call(message, emit=events.append)
    return reply.content, [e.error for e in events]


def test_a_dripping_body_is_cut_off_at_the_attempt_deadline(server: OpenAICompatServer, make_llm: MakeLLM) -> None:
    # ~300 bytes at 20 ms each would take 6 s; httpx's per-read timeout alone never fires.
    llm = make_llm(timeout=0.5)
    server.add("warm-up", ServerReply.drip("slowly", delay=0.02), "fast")
    llm.call("hi")  # the first call imports the SDK: keep that out of the measured time
    start = time.monotonic()
    content, errors = _retry_errors(llm)
    assert content == "fast" and time.monotonic() - start < 3
    assert len(errors) == 1 and "within 0.5s (LLM timeout, the total time per attempt)" in errors[0]


def test_a_timed_out_request_is_sent_again_only_once(server: OpenAICompatServer, make_llm: MakeLLM) -> None:
    llm = make_llm(timeout=0.3)
    server.add("warm-up")
    llm.call("hi")
    server.default = ServerReply.drip("never in time", delay=0.02)
    start = time.monotonic()
    with pytest.raises(LLMError) as info:
        llm.call("hi")
    assert time.monotonic() - start < 3
    assert len(server.chat_requests) == 3  # 1 + 2, not 1 + 1 + max_retries: a one-slot server is still busy
    message = str(info.value)
    assert "gave up after 2 attempts" in message and "CREWGRAPH_LLM_TIMEOUT" in message
    assert info.value.retryable is False
    server.default = None


@pytest.mark.parametrize(("reply", "why", "content_type", "first_bytes"), [
    (ServerReply.garbage(), "not valid JSON", "application/json", '{"id": "chatcmpl-x"'),
    (ServerReply.html(), "not valid JSON", "text/html; charset=utf-8", "<html><head><title>502"),
    (ServerReply.null_message(), "choices[0].message is null", "application/json", '{"id": "chatcmpl-'),
    (ServerReply.empty_choices(), "no choices", "application/json", '{"id": "chatcmpl-'),
    (ServerReply.garbage('{"error": {"message": "upstream overloaded"}}'),
     "an error object with status 200: 'upstream overloaded'", "application/json", '{"error"'),
])
def test_a_200_that_is_not_a_completion_is_a_transient_llm_error(
    server: OpenAICompatServer, make_llm: MakeLLM, reply: ServerReply, why: str, content_type: str,
    first_bytes: str,
) -> None:
    server.add(reply, "recovered")
    content, errors = _retry_errors(make_llm())
    assert content == "recovered"
    assert len(errors) == 1
    assert f"malformed reply from {server.base_url}" in errors[0] and why in errors[0]
    assert f"content type '{content_type}'" in errors[0] and f"body starts '{first_bytes}" in errors[0]
    # When it keeps happening, the final error says the same.
    server.add(reply, reply)
    with pytest.raises(LLMError, match=r"malformed reply .*gave up after 2 attempts"):
        make_llm(max_retries=1).call("hi")


def test_dropped_connections_are_retried(server: OpenAICompatServer, make_llm: MakeLLM) -> None:
    server.add(ServerReply.disconnect(), ServerReply.cut_off("half a reply", after_bytes=30), "whole")
    content, errors = _retry_errors(make_llm())
    assert content == "whole" and len(errors) == 2


def test_malformed_usage_counts_as_zero_with_a_warning(
    server: OpenAICompatServer, make_llm: MakeLLM, caplog: pytest.LogCaptureFixture
) -> None:
    server.add(ServerReply.bad_usage("answer"), ServerReply.bad_usage("again", usage="lots"))
    llm = make_llm()
    with caplog.at_level(logging.WARNING, logger="crewgraph.llm"):
        first = llm.call("hi")
        second = llm.call("hi")
    assert (first.content, second.content) == ("answer", "again")
    for reply in (first, second):
        assert (reply.usage.prompt_tokens, reply.usage.total_tokens, reply.usage.successful_requests) == (0, 0, 1)
    assert sum("malformed usage" in r.getMessage() for r in caplog.records) == 2


def test_structured_calls_get_the_same_protection(server: OpenAICompatServer, make_llm: MakeLLM) -> None:
    class Answer(BaseModel):
        value: int

    server.add(ServerReply.html(), ServerReply.structured({"value": 7}))
    events: list[Any] = []
    reply = make_llm().call("hi", response_model=Answer, emit=events.append)
    assert reply.parsed == Answer(value=7)
    assert len(events) == 1 and "text/html" in events[0].error


def test_a_stalled_stream_hits_the_idle_timeout_and_is_closed(server: OpenAICompatServer, make_llm: MakeLLM) -> None:
    # Chunks 0.4 s apart: fine for a total deadline of 10 s, too slow for idle_timeout=0.15.
    server.add(ServerReply.text("one two three four", chunk_delay=0.4), ServerReply.text("steady", chunk_delay=0.01))
    llm = make_llm(idle_timeout=0.15)
    content, errors = _retry_errors(llm)
    assert content == "steady"
    assert all(r["stream"] is True for r in server.chat_requests)
    assert len(errors) == 1 and "no data for 0.15s (LLM idle_timeout" in errors[0]


def test_a_slow_steady_stream_is_not_cut_off(server: OpenAICompatServer, make_llm: MakeLLM) -> None:
    text = " ".join(f"w{i}" for i in range(30))
    server.add(ServerReply.text(text, chunk_delay=0.03))  # ~1 s in all, never 0.3 s without a token
    assert make_llm(idle_timeout=0.3, timeout=5).call("hi").content == text


def test_a_server_that_refuses_streaming_is_asked_without_it(server: OpenAICompatServer, make_llm: MakeLLM) -> None:
    server.add(ServerReply.error(400, "stream is not supported by this server"), "plain", "plain again")
    llm = make_llm(idle_timeout=5)
    assert llm.call("hi").content == "plain" and llm.call("hi").content == "plain again"
    assert [r.get("stream") for r in server.chat_requests] == [True, None, None]


def test_tools_are_sent_with_tool_choice_auto(server: OpenAICompatServer, make_llm: MakeLLM) -> None:
    from crewgraph.llm import ToolSpec

    server.add("no tool needed")
    make_llm().call("hi", tools=[ToolSpec(name="lookup", description="Look up")])
    assert server.chat_requests[0]["tool_choice"] == "auto"


def test_a_refused_connection_gets_two_retries_not_sixteen() -> None:
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    llm = LLM(model="m", base_url=f"http://127.0.0.1:{port}/v1", api_key="k",
              retry_initial_delay=0.001, retry_max_delay=0.002)
    with pytest.raises(LLMError, match=r"could not connect .*gave up after 3 attempts; is the server running\?"):
        llm.call("hi")


def test_a_stream_request_answered_without_a_stream_is_retried(server: OpenAICompatServer, make_llm: MakeLLM) -> None:
    # The server ignores "stream": true and sends a plain JSON completion: no events at all.
    completion = {"id": "c1", "object": "chat.completion", "created": 0, "model": "m",
                  "choices": [{"index": 0, "message": {"role": "assistant", "content": "unstreamed"},
                               "finish_reason": "stop"}]}
    server.add(ServerReply.garbage(json.dumps(completion)), "streamed fine")
    content, errors = _retry_errors(make_llm(idle_timeout=5))
    assert content == "streamed fine"
    assert len(errors) == 1 and "malformed stream" in errors[0]
