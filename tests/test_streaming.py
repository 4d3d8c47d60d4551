"""Crew(stream=True): chunks as the agents work, then the result; on FakeLLM, offline."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from crewgraph import (
    Agent,
    Crew,
    CrewOutput,
    CrewStreamingOutput,
    Process,
    StreamChunk,
    StreamChunkType,
    Task,
)
from crewgraph.errors import LLMError, RunCancelledError
from crewgraph.events import LLMStreamChunkEvent
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.llm.base import BaseLLM
from crewgraph.llm.types import LLMResponse, StreamDelta
from crewgraph.testing import FakeLLM, FakeRequest, FakeToolCall
from crewgraph.tools import tool

RESEARCH = "Owls hunt at night and fly silently."
POST = "Silent wings: a short post about owls."


@tool("lookup")
def lookup(query: str) -> str:
    """Look a fact up."""
    return f"fact about {query}"


def _crew(llm: BaseLLM, *, stream: bool = True, writer_tools: list[Any] | None = None, **kw: Any) -> Crew:
    researcher = Agent(role="{topic} Researcher", goal="Research {topic}", backstory="Curious", llm=llm)
    writer = Agent(role="Writer", goal="Write", backstory="Clear", llm=llm, tools=writer_tools or [])
    research = Task(name="research", description="Research {topic}", expected_output="notes", agent=researcher)
    write = Task(name="write", description="Write about {topic}", expected_output="post", agent=writer)
    return Crew(agents=[researcher, writer], tasks=[research, write], stream=stream, **kw)


def _text(chunks: list[StreamChunk], task_index: int) -> str:
    return "".join(c.content for c in chunks if c.task_index == task_index and c.chunk_type is StreamChunkType.TEXT)


def _check_two_tasks(crew: Crew, chunks: list[StreamChunk], result: CrewOutput) -> None:
    assert [t.raw for t in result.tasks_output] == [RESEARCH, POST]
    for index, (task, agent) in enumerate(zip(crew.tasks, crew.agents, strict=True)):
        mine = [c for c in chunks if c.task_index == index]
        assert len(mine) > 3, "FakeLLM streams word by word"
        assert {c.task_name for c in mine} == {task.name}
        assert {c.task_id for c in mine} == {str(task.id)}
        assert {c.agent_id for c in mine} == {str(agent.id)}
        assert {c.run_id for c in mine} == {result.run_id}
        assert {c.node_id for c in mine} == {f"t{index + 1}_{task.name}.agent"}
    assert {c.agent_role for c in chunks if c.task_index == 0} == {"owls Researcher"}  # interpolated
    assert {c.agent_role for c in chunks if c.task_index == 1} == {"Writer"}
    assert _text(chunks, 0) == RESEARCH
    assert _text(chunks, 1) == POST
    # Task 0's chunks all come before task 1's: a sequential crew streams in task order.
    indexes = [c.task_index for c in chunks]
    assert indexes == sorted(indexes)


def test_sync_iteration_streams_each_task_then_gives_the_result() -> None:
    llm = FakeLLM([RESEARCH, POST])
    crew = _crew(llm)
    streaming = crew.kickoff(inputs={"topic": "owls"})
    assert isinstance(streaming, CrewStreamingOutput)
    assert llm.call_count == 0, "the run starts when the stream is iterated"
    chunks = []
    for chunk in streaming:
        assert isinstance(chunk, StreamChunk)
        chunks.append(chunk)
    assert streaming.is_completed and not streaming.is_cancelled
    result = streaming.result
    assert isinstance(result, CrewOutput) and result.raw == POST
    assert streaming.results == [result]
    _check_two_tasks(crew, chunks, result)
    assert streaming.chunks == chunks
    assert streaming.get_full_text() == RESEARCH + POST
    assert str(chunks[0]) == chunks[0].content
    assert all(request.stream for request in llm.calls)
    assert crew.usage_metrics is not None and crew.usage_metrics.successful_requests == 2


def test_async_iteration_with_kickoff_async() -> None:
    llm = FakeLLM([RESEARCH, POST])
    crew = _crew(llm)

    async def main() -> tuple[list[StreamChunk], CrewOutput]:
        streaming = await crew.kickoff_async(inputs={"topic": "owls"})
        assert isinstance(streaming, CrewStreamingOutput)
        chunks = [chunk async for chunk in streaming]
        return chunks, streaming.result

    chunks, result = asyncio.run(main())
    _check_two_tasks(crew, chunks, result)


def test_a_kickoff_stream_can_also_be_read_with_async_for() -> None:
    streaming = _crew(FakeLLM([RESEARCH, POST])).kickoff(inputs={"topic": "owls"})
    assert isinstance(streaming, CrewStreamingOutput)

    async def main() -> str:
        return "".join([chunk.content async for chunk in streaming])

    assert asyncio.run(main()) == RESEARCH + POST
    assert streaming.result.raw == POST


def test_tool_calls_stream_as_tool_call_chunks() -> None:
    llm = FakeLLM([RESEARCH, FakeToolCall("lookup", {"query": "owl wings"}), POST])
    streaming = _crew(llm, writer_tools=[lookup]).kickoff(inputs={"topic": "owls"})
    assert isinstance(streaming, CrewStreamingOutput)
    chunks = list(streaming)
    calls = [c for c in chunks if c.chunk_type is StreamChunkType.TOOL_CALL]
    assert calls, "the tool call shows up in the stream"
    assert {(c.task_index, c.task_name, c.agent_role) for c in calls} == {(1, "write", "Writer")}
    assert all(c.tool_call is not None and c.tool_call.tool_name == "lookup" == c.tool_call.name for c in calls)
    last = calls[-1].tool_call
    assert last is not None and last.arguments == '{"query": "owl wings"}'  # everything so far
    assert "".join(c.content for c in calls) == last.arguments  # contents are the fragments
    assert last.tool_id and {c.tool_call.tool_id for c in calls if c.tool_call} == {last.tool_id}
    # The text of the task is the final answer only; the tool ran and its result reached the model.
    assert _text(chunks, 1) == POST
    assert all(c.tool_call is None for c in chunks if c.chunk_type is StreamChunkType.TEXT)
    assert "fact about owl wings" in llm.calls[2].prompt
    assert streaming.result.raw == POST


def test_result_before_the_stream_is_consumed_says_so() -> None:
    streaming = _crew(FakeLLM([RESEARCH, POST])).kickoff(inputs={"topic": "owls"})
    assert isinstance(streaming, CrewStreamingOutput)
    with pytest.raises(RuntimeError, match="iterate over all of its chunks"):
        _ = streaming.result
    iterator = iter(streaming)
    next(iterator)
    with pytest.raises(RuntimeError, match="has not finished"):
        _ = streaming.result
    rest = list(iterator)
    assert rest and streaming.result.raw == POST


def test_breaking_out_and_iterating_again_continues() -> None:
    streaming = _crew(FakeLLM([RESEARCH, POST])).kickoff(inputs={"topic": "owls"})
    assert isinstance(streaming, CrewStreamingOutput)
    first: list[str] = []
    for chunk in streaming:
        first.append(chunk.content)
        if len(first) == 2:
            break
    rest = [chunk.content for chunk in streaming]
    assert "".join(first + rest) == RESEARCH + POST
    assert list(streaming) == []  # consumed: nothing more
    assert streaming.result.raw == POST


def test_an_error_in_the_run_is_raised_from_iteration_and_result() -> None:
    llm = FakeLLM([RESEARCH, LLMError("model is down")])
    streaming = _crew(llm).kickoff(inputs={"topic": "owls"})
    assert isinstance(streaming, CrewStreamingOutput)
    seen: list[StreamChunk] = []
    with pytest.raises(LLMError, match="model is down"):
        for chunk in streaming:
            seen.append(chunk)
    assert _text(seen, 0) == RESEARCH  # the first task's chunks arrived before the failure
    assert streaming.is_completed
    with pytest.raises(LLMError, match="model is down"):
        _ = streaming.result


def test_an_error_surfaces_from_async_iteration() -> None:
    crew = _crew(FakeLLM([LLMError("no model")]))

    async def main() -> None:
        streaming = await crew.kickoff_async(inputs={"topic": "owls"})
        assert isinstance(streaming, CrewStreamingOutput)
        async for _chunk in streaming:
            pass

    with pytest.raises(LLMError, match="no model"):
        asyncio.run(main())


def test_kickoff_for_each_returns_one_lazy_stream_per_input() -> None:
    llm = FakeLLM(["notes A", "post A", "notes B", "post B"])
    crew = _crew(llm)
    streams = crew.kickoff_for_each([{"topic": "A"}, {"topic": "B"}])
    assert isinstance(streams, list) and len(streams) == 2
    assert all(isinstance(s, CrewStreamingOutput) for s in streams)
    assert llm.call_count == 0
    texts = []
    for streaming in streams:
        assert isinstance(streaming, CrewStreamingOutput)
        texts.append("".join(c.content for c in streaming))
    # One after the other, as consumed: each run saw its own replies in order.
    assert texts == ["notes Apost A", "notes Bpost B"]
    assert [s.result.raw for s in streams if isinstance(s, CrewStreamingOutput)] == ["post A", "post B"]
    roles = {c.agent_role for s in streams if isinstance(s, CrewStreamingOutput) for c in s.chunks if c.task_index == 0}
    assert roles == {"A Researcher", "B Researcher"}


def test_kickoff_for_each_async_merges_every_run_into_one_stream() -> None:
    def reply(request: FakeRequest) -> str:
        topic = "A" if "Research A" in request.prompt or "about A" in request.prompt else "B"
        kind = "post" if "Write about" in request.prompt else "notes"
        return f"{kind} on {topic} in several words"

    crew = _crew(FakeLLM(default=reply))

    async def main() -> CrewStreamingOutput:
        streaming = await crew.kickoff_for_each_async([{"topic": "A"}, {"topic": "B"}])
        assert isinstance(streaming, CrewStreamingOutput)
        async for _chunk in streaming:
            pass
        return streaming

    streaming = asyncio.run(main())
    results = streaming.results
    assert [r.raw for r in results] == ["post on A in several words", "post on B in several words"]
    by_run: dict[str, list[StreamChunk]] = {}
    for chunk in streaming.chunks:
        by_run.setdefault(chunk.run_id, []).append(chunk)
    assert set(by_run) == {r.run_id for r in results}
    for result in results:
        mine = by_run[result.run_id or ""]
        assert _text(mine, 0) == result.tasks_output[0].raw
        assert _text(mine, 1) == result.tasks_output[1].raw
    with pytest.raises(RuntimeError, match=r"merges 2 runs.*\.results"):
        _ = streaming.result


def test_stream_false_is_unchanged_and_asks_for_no_stream() -> None:
    llm = FakeLLM([RESEARCH, POST])
    events: list[Any] = []
    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.on(LLMStreamChunkEvent)(lambda source, event: events.append(event))
        out = _crew(llm, stream=False).kickoff(inputs={"topic": "owls"})
    assert isinstance(out, CrewOutput) and out.raw == POST
    assert not any(request.stream for request in llm.calls)
    assert events == []
    outs = _crew(FakeLLM(default="x"), stream=False).kickoff_for_each([{"topic": "a"}, {"topic": "b"}])
    assert [o.raw for o in outs if isinstance(o, CrewOutput)] == ["x", "x"]


def test_each_delta_is_published_as_an_llm_stream_chunk_event() -> None:
    crew = _crew(FakeLLM([RESEARCH, POST]))
    events: list[LLMStreamChunkEvent] = []
    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.on(LLMStreamChunkEvent)(lambda source, event: events.append(event))
        streaming = crew.kickoff(inputs={"topic": "owls"})
        assert isinstance(streaming, CrewStreamingOutput)
        chunks = list(streaming)
    assert [e.chunk for e in events] == [c.content for c in chunks]
    assert {(e.task_name, e.node_id, e.model) for e in events} == {
        ("research", "t1_research.agent", "fake"),
        ("write", "t2_write.agent", "fake"),
    }
    assert {e.run_id for e in events} == {streaming.result.run_id}
    assert all(e.node_kind == "agent_step" and e.chunk_type == "text" for e in events)


def test_a_model_that_cannot_stream_still_shows_up_in_the_stream() -> None:
    class Plain(BaseLLM):
        model = "plain"

        async def acall(self, messages: list[dict[str, Any]], **kwargs: Any) -> LLMResponse:
            return LLMResponse(content="whole answer at once")

    streaming = _crew(Plain()).kickoff(inputs={"topic": "owls"})
    assert isinstance(streaming, CrewStreamingOutput)
    chunks = list(streaming)
    assert [(c.task_index, c.content) for c in chunks] == [(0, "whole answer at once"), (1, "whole answer at once")]


def test_hierarchical_delegations_stream_under_the_task_with_the_coworker_role() -> None:
    researcher = Agent(role="Researcher", goal="Find facts", llm=FakeLLM(["owl facts in words"]))
    manager = FakeLLM([
        FakeToolCall("Delegate_work_to_coworker", {"task": "Find owl facts", "context": "", "coworker": "Researcher"}),
        "the final notes",
    ])
    task = Task(name="research", description="Research owls", expected_output="notes")
    crew = Crew(agents=[researcher], tasks=[task], process=Process.hierarchical, manager_llm=manager, stream=True)
    streaming = crew.kickoff()
    assert isinstance(streaming, CrewStreamingOutput)
    chunks = list(streaming)
    assert {c.task_index for c in chunks} == {0}
    coworker = [c for c in chunks if c.agent_role == "Researcher"]
    assert "".join(c.content for c in coworker) == "owl facts in words"
    assert {c.agent_id for c in coworker} == {str(researcher.id)}
    assert any(c.chunk_type is StreamChunkType.TOOL_CALL for c in chunks if c.agent_role != "Researcher")
    assert streaming.result.raw == "the final notes"


def test_close_cancels_the_run() -> None:
    async def slow(request: FakeRequest) -> str:
        await asyncio.sleep(30)
        return "never"

    llm = FakeLLM([RESEARCH, slow])
    streaming = _crew(llm).kickoff(inputs={"topic": "owls"})
    assert isinstance(streaming, CrewStreamingOutput)
    read = ""
    with pytest.raises(RunCancelledError):
        for chunk in streaming:
            read += chunk.content
            if read == RESEARCH:
                streaming.close()  # the run is now waiting on the slow second reply
    assert read == RESEARCH
    assert streaming.is_cancelled and streaming.is_completed
    with pytest.raises(RunCancelledError):
        _ = streaming.result


def test_close_before_iterating_never_runs_and_with_closes() -> None:
    llm = FakeLLM([RESEARCH, POST])
    streaming = _crew(llm).kickoff(inputs={"topic": "owls"})
    assert isinstance(streaming, CrewStreamingOutput)
    with streaming:
        pass
    assert streaming.is_cancelled and list(streaming) == []
    assert llm.call_count == 0
    with pytest.raises(RunCancelledError, match="closed before"):
        _ = streaming.result


def test_a_kickoff_async_stream_cannot_be_iterated_synchronously() -> None:
    async def main() -> None:
        streaming = await _crew(FakeLLM([RESEARCH, POST])).kickoff_async(inputs={"topic": "owls"})
        assert isinstance(streaming, CrewStreamingOutput)
        with pytest.raises(TypeError, match="async for"):
            iter(streaming)
        await streaming.aclose()

    asyncio.run(main())


def test_fake_llm_streams_words_and_tool_call_fragments_only_when_asked() -> None:
    deltas: list[StreamDelta] = []
    llm = FakeLLM(["three small words", FakeToolCall("lookup", {"query": "x"})])
    reply = llm.call("hi", on_chunk=deltas.append)
    assert [d.text for d in deltas] == ["three ", "small ", "words"]
    assert reply.content == "three small words" and llm.calls[0].stream
    assert "on_chunk" not in llm.calls[0].kwargs
    deltas.clear()
    reply = llm.call("hi", on_chunk=deltas.append)
    fragments = [d.tool_call for d in deltas if d.tool_call is not None]
    assert len(fragments) > 1 and {f.name for f in fragments} == {"lookup"}
    assert "".join(f.arguments for f in fragments) == reply.tool_calls[0].arguments
    plain = FakeLLM(["no stream"])
    plain.call("hi")
    assert plain.calls[0].stream is False


def test_the_cli_runs_a_streaming_crew_to_its_result() -> None:
    from crewgraph.cli._kickoff import _drain_stream

    streaming = _crew(FakeLLM([RESEARCH, POST])).kickoff(inputs={"topic": "owls"})
    out = _drain_stream(streaming)
    assert isinstance(out, CrewOutput) and out.raw == POST
    assert _drain_stream(out) is out
