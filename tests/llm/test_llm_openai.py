"""The real openai SDK path of ``LLM`` against the local OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from crewgraph.errors import LLMError, LLMRateLimitError
from crewgraph.events.llm_events import LLMCallRetryEvent
from crewgraph.llm import LLM, BaseLLM, ToolSpec, as_llm
from crewgraph.llm.openai_llm import OLLAMA_BASE_URL
from crewgraph.testing import OpenAICompatServer, ServerReply

SEARCH = ToolSpec(
    name="search",
    description="Search the web",
    parameters={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
)


def test_text_reply_and_usage(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(ServerReply.text("hello there", usage={"prompt_tokens": 11, "completion_tokens": 3}))
    reply = make_llm().call("hi")
    assert reply.content == "hello there"
    assert reply.tool_calls == []
    assert reply.finish_reason == "stop"
    assert reply.usage.prompt_tokens == 11
    assert reply.usage.completion_tokens == 3
    assert reply.usage.total_tokens == 14
    assert reply.usage.successful_requests == 1
    body = server.chat_requests[0]
    assert body["model"] == "test-model"
    assert body["messages"] == [{"role": "user", "content": "hi"}]


def test_cached_tokens_are_counted(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(ServerReply.text("ok", cached_tokens=5))
    assert make_llm().call("hi").usage.cached_prompt_tokens == 5


def test_native_tool_calls(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(ServerReply.tool_calls(("search", {"q": "crewgraph"}), ("search", '{"q": broken')))
    reply = make_llm().call("find it", tools=[SEARCH])
    assert [c.name for c in reply.tool_calls] == ["search", "search"]
    assert reply.tool_calls[0].parsed_arguments() == {"q": "crewgraph"}
    assert reply.tool_calls[1].arguments == '{"q": broken'  # raw text kept for the tool node
    assert reply.finish_reason == "tool_calls"
    sent = server.chat_requests[0]["tools"]
    assert sent == [SEARCH.to_openai()]
    # The assistant message round-trips into the next request.
    assert reply.assistant_message()["tool_calls"][0]["function"]["name"] == "search"


def test_request_parameters(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add("a", "b")
    llm = make_llm(temperature=0.2, max_tokens=50, top_k=7)
    llm.call("x")
    llm.call("y", temperature=0.9, seed=3, emit=lambda e: None)
    first, second = server.chat_requests
    assert first["temperature"] == 0.2 and first["max_tokens"] == 50 and first["top_k"] == 7
    assert second["temperature"] == 0.9 and second["seed"] == 3
    assert "emit" not in second


def test_429_with_retry_after_then_success(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(ServerReply.error(429, "Rate limit reached", retry_after="0.02"), "done")
    events: list[Any] = []
    reply = make_llm().call("hi", emit=events.append)
    assert reply.content == "done"
    assert len(server.chat_requests) == 2
    assert len(events) == 1
    event = events[0]
    assert isinstance(event, LLMCallRetryEvent)
    assert event.attempt == 1
    assert event.wait_seconds == pytest.approx(0.02)  # the server's Retry-After, not backoff
    assert "429" in event.error and "Rate limit reached" in event.error


def test_retry_after_is_capped(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(ServerReply.error(503, "overloaded", retry_after="3600"), "ok")
    events: list[Any] = []
    assert make_llm(retry_after_max=0.01).call("hi", emit=events.append).content == "ok"
    assert events[0].wait_seconds == pytest.approx(0.01)


def test_500_then_success(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(ServerReply.error(500, "boom"), ServerReply.error(502), "recovered")
    events: list[Any] = []
    assert make_llm().call("hi", emit=events.append).content == "recovered"
    assert [e.attempt for e in events] == [1, 2]


def test_dropped_connection_is_retried(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(ServerReply.disconnect(), "back")
    assert make_llm().call("hi").content == "back"


def test_401_fails_immediately_with_server_message(
    server: OpenAICompatServer, make_llm: Any
) -> None:
    server.add(ServerReply.error(401, "Incorrect API key provided: sk-test"), "never")
    with pytest.raises(LLMError) as info:
        make_llm().call("hi")
    err = info.value
    assert err.status_code == 401
    assert err.retryable is False
    assert "Incorrect API key provided" in str(err)
    assert "OPENAI_API_KEY" in str(err)
    assert len(server.chat_requests) == 1  # not retried
    assert server.remaining == 1


@pytest.mark.parametrize("status", [400, 404, 422])
def test_other_client_errors_are_not_retried(
    server: OpenAICompatServer, make_llm: Any, status: int
) -> None:
    server.add(ServerReply.error(status, f"nope {status}"))
    with pytest.raises(LLMError, match=f"HTTP {status}.*nope {status}") as info:
        make_llm().call("hi")
    assert info.value.status_code == status
    assert len(server.chat_requests) == 1


def test_retries_exhausted(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(*[ServerReply.error(500, "still down")] * 3)
    with pytest.raises(LLMError) as info:
        make_llm(max_retries=2).call("hi")
    err = info.value
    assert not isinstance(err, LLMRateLimitError)
    assert err.status_code == 500
    assert err.retryable is False
    assert "gave up after 3 attempts" in str(err)
    assert "still down" in str(err)
    assert len(server.chat_requests) == 3


def test_rate_limit_exhausted_raises_rate_limit_error(
    server: OpenAICompatServer, make_llm: Any
) -> None:
    server.add(*[ServerReply.error(429, "quota", retry_after="0")] * 2)
    with pytest.raises(LLMRateLimitError) as info:
        make_llm(max_retries=1).call("hi")
    assert info.value.status_code == 429
    assert info.value.retryable is False
    assert info.value.retry_after == 0
    assert "rate limited" in str(info.value)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_connection_refused_is_retried_then_clear_error() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    llm = LLM(model="m", base_url=url, max_retries=2, retry_initial_delay=0.001,
              retry_max_delay=0.002)
    events: list[Any] = []
    with pytest.raises(LLMError) as info:
        llm.call("hi", emit=events.append)
    message = str(info.value)
    assert "could not connect" in message and url in message
    assert "gave up after 3 attempts" in message
    assert info.value.status_code is None
    assert len(events) == 2


def test_missing_key_fails_on_first_call_not_construction(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    llm = LLM(model="gpt-4o-mini")  # no error here
    with pytest.raises(LLMError) as info:
        llm.call("hi")
    message = str(info.value)
    assert "OPENAI_API_KEY" in message
    assert "base_url" in message and "Ollama" in message and "LM Studio" in message


def test_env_base_url_is_honoured_without_key(
    server: OpenAICompatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    server.add("local")
    assert LLM(model="llama").call("hi").content == "local"


def test_env_key_is_sent(server: OpenAICompatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    server.add("ok")
    LLM(model="m", base_url=server.base_url).call("hi")
    assert server.log[0].headers["authorization"] == "Bearer sk-from-env"


def test_model_prefixes() -> None:
    openai_llm = LLM(model="openai/gpt-4o-mini")
    assert openai_llm.model == "gpt-4o-mini" and openai_llm.base_url is None
    ollama = LLM(model="ollama/llama3.2")
    assert ollama.model == "llama3.2"
    assert ollama.base_url == OLLAMA_BASE_URL and ollama.api_key
    assert LLM(model="ollama/x", base_url="http://gpu:11434/v1").base_url == "http://gpu:11434/v1"
    # A provider prefix picks that provider's endpoint; OpenRouter keeps the vendor part of the name.
    claude = LLM(model="anthropic/claude-3.5-sonnet")
    assert (claude.provider, claude.model, claude.endpoint) == (
        "anthropic", "claude-3.5-sonnet", "https://api.anthropic.com/v1")
    assert LLM(model="openrouter/anthropic/claude-3.5-sonnet").model == "anthropic/claude-3.5-sonnet"
    # A slash in a name sent to a configured server is part of the name (vLLM, gateways).
    assert LLM(model="Qwen/Qwen2.5-7B-Instruct", base_url="http://gpu:8000/v1").model == "Qwen/Qwen2.5-7B-Instruct"


def test_as_llm() -> None:
    assert as_llm(None) is None
    llm = as_llm("openai/gpt-4o")
    assert isinstance(llm, LLM) and llm.model == "gpt-4o"
    assert as_llm(llm) is llm
    with pytest.raises(TypeError, match="int"):
        as_llm(3)  # type: ignore[arg-type]
    assert isinstance(llm, BaseLLM)


def test_invalid_structured_mode() -> None:
    with pytest.raises(ValueError, match="structured_mode"):
        LLM(model="m", structured_mode="xml")  # type: ignore[arg-type]


def test_concurrent_calls_share_one_client(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(*[f"r{i}" for i in range(8)])
    llm = make_llm()

    async def main() -> list[str]:
        replies = await asyncio.gather(
            *(llm.acall([{"role": "user", "content": str(i)}]) for i in range(8))
        )
        return [r.content or "" for r in replies]

    assert sorted(asyncio.run(main())) == sorted(f"r{i}" for i in range(8))
    # A second event loop (a second call()) gets its own client and still works.
    server.add("again")
    assert llm.call("x").content == "again"


def test_max_rpm_uses_the_limiter(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add("a", "b")
    llm = make_llm(max_rpm=100)
    llm.call("1")
    llm.call("2")
    assert llm.rate_limiter.max_rpm == 100
    assert llm.rate_limiter.in_window() == 2


def test_rate_limit_key_includes_endpoint(server: OpenAICompatServer, make_llm: Any) -> None:
    assert make_llm().rate_limit_key == f"{server.base_url}|test-model"


def test_timeout_is_retried(server: OpenAICompatServer, make_llm: Any) -> None:
    # Generous margins: on a loaded 2-core machine the client's first request alone can take
    # a few hundred milliseconds, which must not count as the timeout under test.
    server.add(ServerReply.text("too late", delay=2.0), "in time")
    events: list[Any] = []
    assert make_llm(timeout=1.0).call("hi", emit=events.append).content == "in time"
    assert len(events) == 1 and "timed out" in events[0].error


def test_copies_share_the_client_and_pickles_keep_the_configuration() -> None:
    import copy
    import pickle

    llm = LLM(model="ollama/qwen", max_rpm=10, temperature=0.3, top_p=0.9)
    assert copy.deepcopy(llm) is llm
    clone = pickle.loads(pickle.dumps(llm))
    assert (clone.model, clone.base_url, clone.temperature) == ("qwen", llm.base_url, 0.3)
    assert clone.top_p == 0.9 and clone.additional_params == {}
    # same model and endpoint in the same process: one provider quota, one shared window
    assert clone.rate_limiter.max_rpm == 10 and clone.rate_limiter is llm.rate_limiter
