"""Flow.stream_events / Flow.astream: the chunks of the models streaming inside a flow, then its result."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.flow import Flow, listen, start
from crewgraph.testing import FakeLLM

ANSWER = "Owls hunt at night and fly silently."


class OwlFlow(Flow):
    @start()
    def research(self) -> str:
        agent = Agent(role="Researcher", goal="Research", backstory="Curious", llm=FakeLLM([ANSWER]))
        crew = Crew(agents=[agent], tasks=[Task(description="Research owls", expected_output="notes", agent=agent)],
                    stream=True)
        streaming = crew.kickoff()
        for _ in streaming:
            pass
        return streaming.result.raw

    @listen(research)
    def headline(self, notes: str) -> str:
        return notes.split(" and ")[0]


def test_stream_events_yields_the_chunks_then_the_result() -> None:
    streaming = OwlFlow().stream_events()
    chunks = list(streaming)
    assert "".join(c.content for c in chunks) == ANSWER
    assert {c.agent_role for c in chunks} == {"Researcher"}
    assert streaming.result == "Owls hunt at night"


def test_astream_on_the_loop() -> None:
    async def main() -> tuple[str, Any]:
        streaming = OwlFlow().astream()
        text = "".join([c.content async for c in streaming])
        return text, streaming.result

    assert asyncio.run(main()) == (ANSWER, "Owls hunt at night")


def test_stream_setting_and_reload_say_what_to_use() -> None:
    with pytest.raises(ValueError, match="stream_events"):
        OwlFlow(stream=True)
    with pytest.raises(NotImplementedError, match="from_checkpoint"):
        OwlFlow().reload({})
