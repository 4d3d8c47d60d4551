"""The real openai SDK streaming path of ``LLM`` against the local server's SSE answers."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from pydantic import BaseModel

from crewgraph import Agent, Crew, CrewStreamingOutput, StreamChunkType, Task
from crewgraph.errors import LLMError
from crewgraph.events.llm_events import LLMCallRetryEvent
from crewgraph.llm import StreamDelta, ToolSpec
from crewgraph.testing import OpenAICompatServer, ServerReply

SEARCH = ToolSpec(
    name="search",
    description="Search the web",
    parameters={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
)


def test_text_arrives_as_several_deltas_and_the_whole_reply_is_returned(
    server: OpenAICompatServer, make_llm: Any
) -> None:
    server.add(ServerReply.text("streams arrive word by word", usage={"prompt_tokens": 12, "completion_tokens": 5}))
    deltas: list[StreamDelta] = []
    reply = make_llm().call("hi", on_chunk=deltas.append)
    assert [d.text for d in deltas] == ["streams ", "arrive ", "word ", "by ", "word"]
    assert all(d.tool_call is None for d in deltas)
    assert reply.content == "streams arrive word by word"
    assert reply.tool_calls == [] and reply.finish_reason == "stop" and reply.model == "test-model"
    # Usage comes from the last chunk, which the request asked for.
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.usage.total_tokens) == (12, 5, 17)
    assert reply.usage.successful_requests == 1
    body = server.chat_requests[0]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert "on_chunk" not in body and "extra_body" not in body


def test_tool_call_deltas_are_assembled(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(ServerReply.tool_calls(("search", {"q": "owls at night"}), ("search", {"q": "owl wings"})))
    deltas: list[StreamDelta] = []
    reply = make_llm().call("find it", tools=[SEARCH], on_chunk=deltas.append)
    assert [(c.name, c.parsed_arguments()) for c in reply.tool_calls] == [
        ("search", {"q": "owls at night"}),
        ("search", {"q": "owl wings"}),
    ]
    assert [c.id for c in reply.tool_calls] == ["call_1_0", "call_1_1"]
    assert reply.content is None and reply.finish_reason == "tool_calls"
    fragments = [d.tool_call for d in deltas if d.tool_call is not None]
    assert len(fragments) == len(deltas) > 4  # arguments came in pieces
    for index, call in enumerate(reply.tool_calls):
        mine = [f for f in fragments if f.index == index]
        assert {(f.id, f.name) for f in mine} == {(call.id, "search")}  # every delta says whose it is
        assert "".join(f.arguments for f in mine) == call.arguments
    assert server.chat_requests[0]["tools"] == [SEARCH.to_openai()]


def test_a_500_before_streaming_is_retried(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(ServerReply.error(500, "upstream hiccup"), "fine now")
    deltas: list[StreamDelta] = []
    events: list[Any] = []
    reply = make_llm().call("hi", on_chunk=deltas.append, emit=events.append)
    assert reply.content == "fine now"
    assert "".join(d.text for d in deltas) == "fine now"  # delivered once, by the attempt that worked
    assert len(server.chat_requests) == 2
    assert [type(e) for e in events] == [LLMCallRetryEvent]
    assert "500" in events[0].error and "upstream hiccup" in events[0].error


def test_a_hang_up_before_the_first_chunk_is_retried(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(ServerReply.text("lost", stream_break_after=0), "second try")
    deltas: list[StreamDelta] = []
    reply = make_llm().call("hi", on_chunk=deltas.append)
    assert reply.content == "second try" and "".join(d.text for d in deltas) == "second try"
    assert len(server.chat_requests) == 2


def test_a_stream_that_breaks_after_deltas_fails_without_retrying(
    server: OpenAICompatServer, make_llm: Any
) -> None:
    server.add(ServerReply.text("one two three four five", stream_break_after=3), "not reached")
    deltas: list[StreamDelta] = []
    with pytest.raises(LLMError, match="broke after 2 deltas") as info:
        make_llm().call("hi", on_chunk=deltas.append)
    assert [d.text for d in deltas] == ["one ", "two "]  # the role chunk carries no text
    assert info.value.retryable is False  # the node must not replay the deltas either
    assert len(server.chat_requests) == 1


def test_a_server_that_rejects_stream_options_streams_without_usage(make_llm: Any) -> None:
    with OpenAICompatServer(["first", "second"], supports_stream_options=False) as srv:
        llm = make_llm(base_url=srv.base_url)
        deltas: list[StreamDelta] = []
        assert llm.call("hi", on_chunk=deltas.append).content == "first"
        reply = llm.call("again", on_chunk=deltas.append)
        bodies = srv.chat_requests
    assert reply.content == "second" and "".join(d.text for d in deltas) == "firstsecond"
    assert reply.usage.successful_requests == 1 and reply.usage.total_tokens == 0  # nothing reported
    assert "stream_options" in bodies[0] and "stream_options" not in bodies[1]
    assert "stream_options" not in bodies[2], "the refusal is remembered"
    assert len(bodies) == 3


def test_stream_true_without_a_callback_streams_and_returns_the_reply(
    server: OpenAICompatServer, make_llm: Any
) -> None:
    server.add("quiet stream")
    assert make_llm().call("hi", stream=True).content == "quiet stream"
    assert server.chat_requests[0]["stream"] is True


def test_structured_calls_do_not_stream(server: OpenAICompatServer, make_llm: Any) -> None:
    class Verdict(BaseModel):
        ok: bool

    server.add(ServerReply.structured({"ok": True}))
    deltas: list[StreamDelta] = []
    reply = make_llm().call("judge", response_model=Verdict, on_chunk=deltas.append)
    assert reply.parsed == Verdict(ok=True)
    assert deltas == [] and "stream" not in server.chat_requests[0]


def test_deltas_are_reported_as_they_arrive(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(ServerReply.text("a b c d e", chunk_delay=0.05))
    arrivals: list[float] = []

    async def main() -> None:
        await make_llm().acall([{"role": "user", "content": "hi"}], on_chunk=lambda d: arrivals.append(time.perf_counter()))

    asyncio.run(main())
    assert len(arrivals) == 5
    # Five text chunks sent 50 ms apart (after the role chunk): the first arrived well before the last.
    assert arrivals[-1] - arrivals[0] >= 0.15


def test_a_streaming_crew_over_the_real_client(server: OpenAICompatServer, make_llm: Any) -> None:
    server.add(
        ServerReply.tool_calls(("search", {"q": "owls"})),
        "owls hunt at night",
    )
    from crewgraph.tools import tool

    @tool("search")
    def search(q: str) -> str:
        """Search the web."""
        return f"results for {q}"

    agent = Agent(role="Researcher", goal="Find facts", backstory="Curious", llm=make_llm(), tools=[search])
    crew = Crew(agents=[agent], tasks=[Task(name="research", description="Owls", expected_output="notes", agent=agent)],
                stream=True)
    streaming = crew.kickoff()
    assert isinstance(streaming, CrewStreamingOutput)
    chunks = list(streaming)
    text = [c.content for c in chunks if c.chunk_type is StreamChunkType.TEXT]
    assert text == ["owls ", "hunt ", "at ", "night"]
    calls = [c for c in chunks if c.chunk_type is StreamChunkType.TOOL_CALL]
    assert calls and calls[-1].tool_call is not None and calls[-1].tool_call.arguments == '{"q": "owls"}'
    result = streaming.result
    assert result.raw == "owls hunt at night"
    assert result.token_usage.successful_requests == 2 and result.token_usage.total_tokens > 0
    assert all(body["stream"] is True for body in server.chat_requests)
    assert server.chat_requests[1]["messages"][-1]["content"] == "results for owls"
