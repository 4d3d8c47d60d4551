"""A traced flow: flow run -> method -> the crew it kicks off (sharing the flow's run)."""

from __future__ import annotations

from typing import Any

from crewgraph import Agent, Crew, Flow, Task
from crewgraph.flow import listen, start
from crewgraph.testing import FakeLLM

Spans = Any  # the fixture in conftest.py


def _crew() -> Crew:
    writer = Agent(role="Writer", goal="Write", backstory="Writes.", llm=FakeLLM(["a poem"]))
    return Crew(agents=[writer], tasks=[Task(description="Write", expected_output="A poem", agent=writer)], name="poets")


class PoemFlow(Flow):
    @start()
    def topic(self) -> str:
        return "rain"

    @listen(topic)
    def write(self, topic: str) -> str:
        return str(_crew().kickoff(inputs={"topic": topic}).raw)


def test_a_traced_flow_nests_its_methods_and_their_crews(spans: Spans) -> None:
    from opentelemetry.trace import StatusCode

    assert PoemFlow(tracing=True).kickoff() == "a poem"
    flow = spans.one("flow PoemFlow")
    assert spans.parent(flow) is None
    methods = [s.name for s in spans.children(flow)]
    assert methods == ["flow_method topic", "flow_method write"], spans.tree()
    write = spans.children(flow)[1]
    crew = spans.one("crew poets")
    assert spans.parent(crew) is write, spans.tree()
    task = spans.children(crew)[0]
    assert task.name == "task Write", spans.tree()
    agent = spans.children(task)[0]
    assert agent.name == "invoke_agent Writer"
    assert [s.name for s in spans.children(agent)] == ["chat fake"]
    assert all(s.status.status_code is not StatusCode.ERROR for s in spans.all)


def test_tracing_false_on_the_flow_records_nothing(spans: Spans) -> None:
    assert PoemFlow().kickoff() == "a poem"
    assert spans.all == []
