"""FakeLLM: every kind of script item, recorded requests, exhaustion, usage, concurrency."""

from __future__ import annotations

import asyncio
import threading

import pytest
from pydantic import BaseModel

from crewgraph.errors import LLMError, StructuredOutputError
from crewgraph.llm import BaseLLM, ToolSpec
from crewgraph.testing import FakeLLM, FakeLLMExhaustedError, FakeRequest, FakeToolCall

SEARCH = ToolSpec(name="search", parameters={"type": "object", "properties": {}})


class Verdict(BaseModel):
    ok: bool
    reason: str = ""


def test_text_reply_and_recorded_request() -> None:
    llm = FakeLLM(["Paris"])
    assert isinstance(llm, BaseLLM)
    messages = [{"role": "system", "content": "geo"}, {"role": "user", "content": "capital?"}]
    reply = llm.call(messages, temperature=0)
    assert reply.content == "Paris" and reply.finish_reason == "stop"
    request = llm.calls[0]
    assert request.messages == messages and request.messages is not messages
    assert request.kwargs == {"temperature": 0}
    assert "capital?" in request.prompt
    messages.append({"role": "user", "content": "later"})  # the copy is not affected
    assert len(llm.calls[0].messages) == 2


def test_tool_calls() -> None:
    llm = FakeLLM([
        FakeToolCall("search", {"q": "x"}),
        [FakeToolCall("search", {"q": "a"}), FakeToolCall("search", '{"q": ')],
    ])
    one = llm.call("go", tools=[SEARCH])
    assert [(c.name, c.parsed_arguments()) for c in one.tool_calls] == [("search", {"q": "x"})]
    assert one.finish_reason == "tool_calls" and one.content is None
    two = llm.call("go", tools=[SEARCH])
    assert len(two.tool_calls) == 2
    assert two.tool_calls[1].arguments == '{"q": '
    with pytest.raises(ValueError, match="not valid JSON"):
        two.tool_calls[1].parsed_arguments()
    ids = [c.id for c in [*one.tool_calls, *two.tool_calls]]
    assert len(set(ids)) == 3
    assert llm.calls[0].tool_names == ["search"] and llm.calls[0].tools == [SEARCH]


def test_dict_reply() -> None:
    llm = FakeLLM([{"content": "thinking", "tool_calls": [{"name": "search", "args": {"q": 1}}]}])
    reply = llm.call("x", tools=[SEARCH])
    assert reply.content == "thinking"
    assert reply.tool_calls[0].parsed_arguments() == {"q": 1}


def test_model_instance_reply() -> None:
    llm = FakeLLM([Verdict(ok=True, reason="fine"), Verdict(ok=False)])
    structured = llm.call("judge", response_model=Verdict)
    assert structured.parsed == Verdict(ok=True, reason="fine")
    assert llm.calls[0].response_model is Verdict
    text = llm.call("judge")
    assert text.parsed is None and text.content == '{"ok":false,"reason":""}'


def test_text_is_parsed_into_the_response_model() -> None:
    llm = FakeLLM(['```json\n{"ok": true}\n```', "no idea"])
    assert llm.call("j", response_model=Verdict).parsed == Verdict(ok=True)
    with pytest.raises(StructuredOutputError, match="Verdict"):
        llm.call("j", response_model=Verdict)


def test_exceptions_are_raised() -> None:
    llm = FakeLLM([LLMError("down", status_code=503), TimeoutError, "recovered"])
    with pytest.raises(LLMError, match="down"):
        llm.call("a")
    with pytest.raises(TimeoutError):
        llm.call("b")
    assert llm.call("c").content == "recovered"
    assert llm.call_count == 3


def test_callable_reply_sees_the_request() -> None:
    def echo(request: FakeRequest) -> str:
        return f"you said {request.last_message['content'] if request.last_message else ''}"

    llm = FakeLLM([echo, lambda r: FakeToolCall("search", {"n": len(r.messages)})])
    assert llm.call("hi").content == "you said hi"
    assert llm.call("x", tools=[SEARCH]).tool_calls[0].parsed_arguments() == {"n": 1}


def test_async_callable_reply() -> None:
    async def later(request: FakeRequest) -> str:
        await asyncio.sleep(0)
        return f"{len(request.messages)} message(s)"

    assert FakeLLM([later]).call("x").content == "1 message(s)"


def test_exhausted_script_shows_the_last_request() -> None:
    llm = FakeLLM(["only one"])
    llm.call("first")
    with pytest.raises(FakeLLMExhaustedError) as info:
        llm.call("the second question", response_model=Verdict)
    message = str(info.value)
    assert isinstance(info.value, AssertionError)
    assert "exhausted" in message and "call #2" in message
    assert "the second question" in message and "Verdict" in message


def test_default_reply_when_exhausted() -> None:
    llm = FakeLLM(default="fallback")
    assert [llm.call(str(i)).content for i in range(3)] == ["fallback"] * 3
    llm.add("scripted")
    assert llm.call("x").content == "scripted"
    assert llm.remaining == 0


def test_usage_is_estimated() -> None:
    llm = FakeLLM(["x" * 40, "y"])
    usage = llm.call("a" * 80).usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (20, 10, 30)
    assert usage.successful_requests == 1
    tiny = llm.call("").usage
    assert tiny.prompt_tokens == 1 and tiny.completion_tokens == 1


def test_unknown_item_type() -> None:
    with pytest.raises(TypeError, match="cannot reply"):
        FakeLLM([42]).call("x")


def test_concurrent_tasks_and_threads_consume_each_item_once() -> None:
    llm = FakeLLM([f"r{i}" for i in range(60)], latency=0.001)

    async def many() -> list[str]:
        replies = await asyncio.gather(
            *(llm.acall([{"role": "user", "content": str(i)}]) for i in range(20))
        )
        return [r.content or "" for r in replies]

    seen: list[str] = []
    lock = threading.Lock()

    def worker() -> None:
        for _ in range(10):
            content = llm.call("t").content or ""
            with lock:
                seen.append(content)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    seen.extend(asyncio.run(many()))
    for t in threads:
        t.join()
    assert sorted(seen) == sorted(f"r{i}" for i in range(60))
    assert len(llm.calls) == 60


def test_function_calling_flag() -> None:
    assert FakeLLM().supports_function_calling()
    assert not FakeLLM(function_calling=False).supports_function_calling()
