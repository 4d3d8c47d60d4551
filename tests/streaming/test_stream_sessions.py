"""crewai.types.streaming's stream sessions and FlowStreamingOutput, over real flow and crew runs."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.flow import Flow, listen, start
from crewgraph.testing import FakeLLM
from crewgraph.types.streaming import (
    AsyncStreamSession,
    CrewStreamingOutput,
    FlowStreamingOutput,
    StreamingOutputBase,
    StreamSession,
    StreamSessionBase,
)


def _flow(text: str) -> Flow[Any]:
    class Writer(Flow[dict]):
        @start()
        def begin(self) -> str:
            return "topic"

        @listen(begin)
        def write(self, topic: str) -> str:
            agent = Agent(role="Writer", goal="write", backstory="b", llm=FakeLLM([text]))
            crew = Crew(agents=[agent], tasks=[Task(description=f"Write about {topic}", expected_output="text",
                                                    agent=agent)], stream=True)
            streaming = crew.kickoff()
            for _ in streaming:
                pass
            return streaming.result.raw

    return Writer()


def test_a_stream_session_yields_the_flows_frames_in_order() -> None:
    flow = _flow("owls hunt at night")
    session: StreamSession[Any] = StreamSession(lambda: flow.kickoff_async())
    assert isinstance(session, StreamSessionBase) and not session.is_completed
    with pytest.raises(RuntimeError, match="not completed"):
        _ = session.result
    frames = list(session)
    assert session.is_exhausted and session.is_completed and session.result == "owls hunt at night"
    channels = {f.channel for f in frames}
    assert {"flow", "llm", "lifecycle"} <= channels
    assert [f.seq for f in frames] == list(range(1, len(frames) + 1))
    assert all(b.previous_id == a.id for a, b in itertools.pairwise(frames))
    llm_text = "".join(f.content or "" for f in session.llm)  # replayed from the kept frames
    assert llm_text.replace(" ", "") == "owlshuntatnight"
    flow_types = [f.type for f in session.flow]
    assert "method_execution_started" in flow_types or any("method" in t for t in flow_types)
    assert [f.channel for f in session.interleave(["llm", "flow"])] == [
        f.channel for f in frames if f.channel in ("llm", "flow")]


def test_an_async_session_and_a_closed_one() -> None:
    async def go() -> tuple[list[str], Any]:
        flow = _flow("bats too")
        session: AsyncStreamSession[Any] = AsyncStreamSession(lambda: flow.kickoff_async())
        seen = [f.channel async for f in session.subscribe(["llm"])]
        return seen, session.result

    seen, result = asyncio.run(go())
    assert result == "bats too" and seen and set(seen) == {"llm"}
    session: StreamSession[Any] = StreamSession(lambda: asyncio.sleep(30))
    session.close()
    assert session.is_cancelled and list(session) == []


def test_flow_streaming_output_streams_the_chunks() -> None:
    flow = _flow("rivers run to the sea")
    streaming = FlowStreamingOutput.from_run(lambda: flow.kickoff_async())
    assert isinstance(streaming, StreamingOutputBase) and not isinstance(streaming, CrewStreamingOutput)
    chunks = list(streaming)
    assert len(chunks) > 1 and streaming.is_completed
    assert streaming.get_full_text().replace(" ", "") == "riversruntothesea"
    assert chunks[0].agent_role == "Writer"
    assert streaming.result == "rivers run to the sea"
