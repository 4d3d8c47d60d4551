"""Crews inside flow methods: sync kickoff in a worker thread, async kickoff on the loop;
the crews' events carry the flow's run id."""

from __future__ import annotations

from typing import Any

from crewgraph import Agent, Crew, CrewOutput, Task
from crewgraph.events import CrewKickoffCompletedEvent, CrewKickoffStartedEvent, FlowStartedEvent
from crewgraph.events.node_events import NodeFinishedEvent
from crewgraph.flow import Flow, listen, start
from crewgraph.testing import FakeLLM


def _crew(llm: FakeLLM, name: str) -> Crew:
    agent = Agent(role=f"{name} writer", goal="Write", backstory="Terse", llm=llm)
    task = Task(name=name, description=f"Write about {{topic}} ({name})", expected_output="a line", agent=agent)
    return Crew(name=name, agents=[agent], tasks=[task])


def test_crews_in_sync_and_async_methods_report_under_the_flow_run(captured: Any) -> None:
    llm = FakeLLM(responses=["outline of AI", "post from outline"])

    class Pipeline(Flow[dict]):
        @start()
        def outline(self) -> str:
            out = _crew(llm, "outline").kickoff(inputs={"topic": self.state["topic"]})
            return out.raw

        @listen(outline)
        async def post(self, outline: str) -> CrewOutput:
            self.state["outline"] = outline
            return await _crew(llm, "post").kickoff_async(inputs={"topic": outline})

    flow = Pipeline()
    result = flow.kickoff(inputs={"topic": "AI"})
    assert isinstance(result, CrewOutput) and result.raw == "post from outline"
    assert flow.state["outline"] == "outline of AI"
    run_id = flow.run_id
    assert run_id and result.run_id == run_id
    crew_started = captured.of(CrewKickoffStartedEvent)
    assert [e.crew_name for e in crew_started] == ["outline", "post"]
    assert {e.run_id for e in crew_started + captured.of(CrewKickoffCompletedEvent)} == {run_id}
    node_ids = {e.node_id for e in captured.of(NodeFinishedEvent)}
    assert {"outline", "post"} <= node_ids  # the flow's method nodes
    assert any(n and n.startswith("t1_") for n in node_ids)  # and the crews' own nodes
    assert {e.run_id for e in captured.of(NodeFinishedEvent)} == {run_id}
    assert captured.of(FlowStartedEvent)[0].run_id == run_id


def test_crews_outside_a_flow_keep_their_own_run_ids(captured: Any) -> None:
    llm = FakeLLM(responses=["a", "b"])
    first = _crew(llm, "one").kickoff(inputs={"topic": "x"})
    second = _crew(llm, "two").kickoff(inputs={"topic": "x"})
    assert first.run_id and second.run_id and first.run_id != second.run_id


def test_parallel_crews_in_parallel_methods() -> None:
    llm = FakeLLM(responses=["r1", "r2"])

    class Fan(Flow):
        @start()
        def begin(self) -> str:
            return "go"

        @listen(begin)
        def left(self) -> str:
            return _crew(llm, "left").kickoff(inputs={"topic": "l"}).raw

        @listen(begin)
        def right(self) -> str:
            return _crew(llm, "right").kickoff(inputs={"topic": "r"}).raw

    flow = Fan()
    flow.kickoff()
    assert sorted(flow.method_outputs[1:]) == ["r1", "r2"]
    assert len(llm.calls) == 2


def test_run_context_is_reset_after_a_kickoff() -> None:
    from crewgraph._internal.run_context import current_run_id

    seen: list[str | None] = []

    class F(Flow):
        @start()
        def a(self) -> None:
            seen.append(current_run_id())

    flow = F()
    flow.kickoff()
    assert seen == [flow.run_id] and current_run_id() is None
