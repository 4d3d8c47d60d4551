"""akickoff, usage_metrics over every LLM call in a flow, trigger payloads reaching @start."""

from __future__ import annotations

import asyncio
from typing import Any

from crewgraph import Agent, Crew, Task
from crewgraph.flow import Flow, listen, start
from crewgraph.testing import FakeLLM


def test_akickoff_runs_on_the_current_loop() -> None:
    class F(Flow):
        @start()
        async def a(self) -> str:
            await asyncio.sleep(0)
            return "a"

    assert asyncio.run(F().akickoff()) == "a"


def test_usage_metrics_sum_crews_and_direct_calls() -> None:
    crew_llm = FakeLLM(default="Final Answer: researched")
    direct = FakeLLM(default="a direct reply")

    class F(Flow):
        @start()
        def research(self) -> str:
            agent = Agent(role="r", goal="g", backstory="b", llm=crew_llm)
            task = Task(description="research", expected_output="text", agent=agent)
            return Crew(agents=[agent], tasks=[task]).kickoff().raw

        @listen(research)
        def summarize(self, text: str) -> str:
            return str(direct.call(f"summarize {text}").content)

    flow = F()
    assert flow.usage_metrics.total_tokens == 0
    assert flow.kickoff() == "a direct reply"
    usage = flow.usage_metrics
    assert usage.successful_requests == 2
    assert usage.total_tokens > 0 and usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    flow.kickoff()  # each kickoff counts its own calls
    assert flow.usage_metrics.successful_requests == 2


def test_trigger_payload_reaches_start_methods() -> None:
    seen: dict[str, Any] = {}

    class F(Flow[dict]):
        @start()
        def on_trigger(self, crewai_trigger_payload: dict[str, Any] | None = None) -> str:
            seen["payload"] = crewai_trigger_payload
            return "ok"

        @start()
        def plain(self) -> str:
            return "plain"

        @listen(on_trigger)
        def after(self, value: str) -> str:
            return value

    flow = F()
    payload = {"event": "email_received", "subject": "hi"}
    flow.kickoff(inputs={"crewai_trigger_payload": payload, "topic": "x"})
    assert seen["payload"] == payload and flow.trigger_payload == payload
    assert flow.state["topic"] == "x" and "crewai_trigger_payload" not in flow.state
    flow.kickoff()
    assert seen["payload"] is None


def test_usage_metrics_count_memory_analysis(tmp_path: Any) -> None:
    from crewgraph.memory import Memory
    from crewgraph.memory.analysis import ExtractedMemories

    llm = FakeLLM([ExtractedMemories(memories=["Budget is $50k", "Sarah leads"])])
    memory = Memory(llm=llm, storage=str(tmp_path / "mem"))

    class F(Flow):
        @start()
        def facts(self) -> list[str]:
            return self.extract_memories("Budget $50k. Sarah leads.")

    flow = F(memory=memory)
    assert flow.kickoff() == ["Budget is $50k", "Sarah leads"]
    assert flow.usage_metrics.successful_requests == 1 and flow.usage_metrics.total_tokens > 0
    memory.close()
