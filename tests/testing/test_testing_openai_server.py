"""OpenAICompatServer seen through the real openai SDK: embeddings, errors, recording."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from crewgraph.testing import OpenAICompatServer, ServerReply, embedding_for


def _post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status, json.loads(resp.read()), dict(resp.headers)
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read()), dict(err.headers)


def test_base_url_and_lifecycle() -> None:
    server = OpenAICompatServer()
    with pytest.raises(RuntimeError, match="not started"):
        _ = server.base_url
    with server:
        assert server.base_url.startswith("http://127.0.0.1:") and server.base_url.endswith("/v1")
    server.stop()  # idempotent


def test_embeddings_through_the_sdk() -> None:
    import openai

    async def main(url: str) -> list[list[float]]:
        async with openai.AsyncOpenAI(base_url=url, api_key="x", max_retries=0) as client:
            result = await client.embeddings.create(model="emb", input=["alpha", "beta"])
            return [d.embedding for d in result.data]

    with OpenAICompatServer(embedding_dim=8) as server:
        vectors = asyncio.run(main(server.base_url))
        assert [len(v) for v in vectors] == [8, 8]
        assert vectors[0] == pytest.approx(embedding_for("alpha", 8), abs=1e-6)
        assert vectors[0] != pytest.approx(vectors[1])
        assert server.requests[0]["input"] == ["alpha", "beta"]
    assert sum(v * v for v in embedding_for("x", 16)) == pytest.approx(1.0)
    assert embedding_for("same", 4) == embedding_for("same", 4)


def test_embeddings_as_floats_and_dimensions() -> None:
    with OpenAICompatServer() as server:
        status, body, _ = _post(server.base_url + "/embeddings",
                                {"input": "hi", "dimensions": 5, "encoding_format": "float"})
        assert status == 200 and body["data"][0]["embedding"] == embedding_for("hi", 5)
        assert body["usage"]["prompt_tokens"] >= 1


def test_injected_error_with_retry_after_and_custom_body() -> None:
    with OpenAICompatServer([
        ServerReply.error(429, "slow", retry_after=2),
        ServerReply.error(503, body={"detail": "maintenance"}),
    ]) as server:
        status, body, headers = _post(server.base_url + "/chat/completions", {"messages": []})
        assert status == 429 and headers["Retry-After"] == "2"
        assert body["error"]["message"] == "slow"
        status, body, _ = _post(server.base_url + "/chat/completions", {"messages": []})
        assert status == 503 and body == {"detail": "maintenance"}


def test_exhausted_script_default_and_callables() -> None:
    with OpenAICompatServer(default=lambda body: f"echo {body['messages'][-1]['content']}") as srv:
        srv.add(lambda body: ServerReply.json({"n": len(body["messages"])}))
        url = srv.base_url + "/chat/completions"
        _, body, _ = _post(url, {"messages": [{"role": "user", "content": "a"}]})
        assert json.loads(body["choices"][0]["message"]["content"]) == {"n": 1}
        _, body, _ = _post(url, {"messages": [{"role": "user", "content": "b"}]})
        assert body["choices"][0]["message"]["content"] == "echo b"
    with OpenAICompatServer() as srv:
        status, body, _ = _post(srv.base_url + "/chat/completions", {"messages": []})
        assert status == 400 and "no scripted reply left" in body["error"]["message"]


def test_broken_callable_answers_500() -> None:
    with OpenAICompatServer([lambda body: 1 / 0]) as srv:
        status, body, _ = _post(srv.base_url + "/chat/completions", {"messages": []})
        assert status == 500 and "ZeroDivisionError" in body["error"]["message"]


def test_supports_tools_false_does_not_consume_the_script() -> None:
    with OpenAICompatServer(["kept"], supports_tools=False) as srv:
        url = srv.base_url + "/chat/completions"
        status, body, _ = _post(url, {"messages": [], "tools": [{"type": "function"}]})
        assert status == 400 and "tools" in body["error"]["message"]
        assert srv.remaining == 1
        _, body, _ = _post(url, {"messages": []})
        assert body["choices"][0]["message"]["content"] == "kept"
        assert len(srv.chat_requests) == 2


def test_models_endpoint_and_unknown_paths() -> None:
    with OpenAICompatServer(model="tiny") as srv:
        with urllib.request.urlopen(srv.base_url + "/models", timeout=10) as resp:
            assert json.loads(resp.read())["data"][0]["id"] == "tiny"
        status, _, _ = _post(srv.base_url + "/nope", {})
        assert status == 404
