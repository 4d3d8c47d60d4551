"""``LLM(interceptor=...)``: a ``BaseInterceptor`` sees and changes the model's HTTP traffic."""

from __future__ import annotations

import json
from typing import Any

import pytest

from crewgraph.llm._transport import sdk_httpx
from crewgraph.llm.interceptor import BaseInterceptor
from crewgraph.llms.hooks import BaseInterceptor as AtCrewAIPath
from crewgraph.testing import OpenAICompatServer, ServerReply


class Tagging(BaseInterceptor[Any, Any]):
    """Adds a header to every request and records every reply's status (sync hooks)."""

    def __init__(self) -> None:
        self.statuses: list[int] = []
        self.paths: list[str] = []

    def on_outbound(self, message: Any) -> Any:
        message.headers["X-Gateway-Tag"] = "team-a"
        self.paths.append(message.url.path)
        return message

    def on_inbound(self, message: Any) -> Any:
        self.statuses.append(message.status_code)
        return message


class AsyncRewriting(BaseInterceptor[Any, Any]):
    """Async hooks only: rewrites the request body and the reply's content."""

    def on_outbound(self, message: Any) -> Any:
        raise AssertionError("the async form is overridden: it must be the one called")

    def on_inbound(self, message: Any) -> Any:
        raise AssertionError("the async form is overridden: it must be the one called")

    async def aon_outbound(self, message: Any) -> Any:
        httpx = sdk_httpx()  # the httpx the openai SDK is built on (possibly its fork)
        body = json.loads(message.content)
        body["messages"][-1]["content"] += " (rewritten)"
        return httpx.Request(message.method, message.url, headers={
            k: v for k, v in message.headers.items() if k.lower() != "content-length"}, json=body)

    async def aon_inbound(self, message: Any) -> Any:
        httpx = sdk_httpx()
        await message.aread()
        data = message.json()
        data["choices"][0]["message"]["content"] = data["choices"][0]["message"]["content"].upper()
        return httpx.Response(message.status_code, headers={"content-type": "application/json"},
                              json=data)


def test_the_crewai_path_is_the_same_class() -> None:
    assert AtCrewAIPath is BaseInterceptor


def test_a_sync_interceptor_sees_every_request_and_reply(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(ServerReply.text("hello"))
    tag = Tagging()
    reply = make_llm(interceptor=tag).call("hi")
    assert reply.content == "hello"
    assert tag.paths and tag.paths[0].endswith("/chat/completions")
    assert tag.statuses == [200]
    assert server.log[-1].headers.get("x-gateway-tag") == "team-a"


def test_async_hooks_are_used_when_overridden(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(ServerReply.text("quiet words"))
    reply = make_llm(interceptor=AsyncRewriting()).call("hi")
    assert server.chat_requests[0]["messages"][-1]["content"] == "hi (rewritten)"
    assert reply.content == "QUIET WORDS"


def test_anything_but_an_interceptor_is_refused(make_llm: Any) -> None:
    with pytest.raises(ValueError, match="interceptor must be a BaseInterceptor"):
        make_llm(interceptor=lambda request: request)
