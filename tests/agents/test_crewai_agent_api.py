"""CrewAI's BaseAgent / Agent / Task / Crew methods, called as CrewAI code calls them."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from hashlib import md5
from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.agents.agent_builder.base_agent import BaseAgent
from crewgraph.testing import FakeLLM


class SyncOnly(BaseAgent):
    """A third-party agent that only writes the sync ``execute_task``."""

    def execute_task(self, task: Any, context: str | None = None, tools: list[Any] | None = None) -> str:
        return f"{self.role} did {task.description} with {[t.name for t in tools or []]}"

    def create_agent_executor(self, tools: list[Any] | None = None) -> None:
        return None

    def get_delegation_tools(self, agents: Sequence[BaseAgent]) -> list[Any]:
        return []


def test_base_agent_fields_and_methods() -> None:
    agent = SyncOnly(role="Reviewer of {topic}", goal="review {topic}", backstory="b",
                     knowledge_sources=None, mcps=None, config={"backstory": "from yaml"})
    assert agent.backstory == "b" and agent.config == {"backstory": "from yaml"}
    assert (agent.entity_type, agent.adapted_agent, agent.knowledge_sources, agent.mcps) == ("agent", False, None, None)
    key = agent.key
    assert key == md5(b"Reviewer of {topic}|review {topic}|b").hexdigest()
    agent.interpolate_inputs({"topic": "AI"})
    assert (agent.role, agent.goal) == ("Reviewer of AI", "review AI")
    agent.interpolate_inputs({"topic": "ML"})  # from the text as written, again
    assert agent.role == "Reviewer of ML" and agent.key == key
    task = Task(description="the draft", expected_output="notes", agent=agent)
    assert asyncio.run(agent.aexecute_task(task)) == "Reviewer of ML did the draft with []"

    class Controller:
        max_rpm = 30

    agent.set_rpm_controller(Controller())
    assert agent.max_rpm == 30
    assert agent.get_mcp_tools([]) == []
    with pytest.raises(ValueError, match=r"BaseAgent\.apps is a CrewAI field crewgraph does not support"):
        SyncOnly(role="r", goal="g", apps=["gmail"])
    with pytest.raises(ValueError, match="execution_context"):
        SyncOnly(role="r", goal="g", execution_context=object())


def test_adapters_refuse_what_their_framework_cannot_use() -> None:
    from crewgraph.agents.agent_adapters.base_agent_adapter import BaseAgentAdapter

    class Adapter(BaseAgentAdapter, SyncOnly):
        def configure_tools(self, tools: list[Any] | None = None) -> None:
            return None

    assert Adapter(role="r", goal="g").adapted_agent is True
    with pytest.raises(ValueError, match="skills is not supported for agents of other frameworks"):
        Adapter(role="r", goal="g", skills=[Path(".")])


def test_crew_key_inputs_usage_and_kickoff_order(tmp_path: Path) -> None:
    llm = FakeLLM(default="done")
    writer = Agent(role="Writer on {topic}", goal="write", backstory="b", llm=llm)
    task = Task(description="Write about {topic}", expected_output="a {length} text", agent=writer)
    crew = Crew(agents=[writer], tasks=[task])
    assert crew.fetch_inputs() == {"topic", "length"}
    assert crew.key == md5(f"{writer.key}|{task.key}".encode()).hexdigest()
    notes = tmp_path / "notes.md"
    notes.write_text("Remember the deadline.", encoding="utf-8")
    # CrewAI's positional order: inputs, input_files, from_checkpoint
    out = crew.kickoff({"topic": "AI", "length": "short"}, {"notes": str(notes)})
    assert out.raw == "done"
    assert "Remember the deadline." in llm.calls[-1].prompt
    usage = crew.calculate_usage_metrics()
    assert usage.successful_requests == llm.get_token_usage_summary().successful_requests >= 1
    outs = crew.kickoff_for_each([{"topic": "a", "length": "s"}, {"topic": "b", "length": "s"}],
                                 {"notes": str(notes)})
    assert [o.raw for o in outs] == ["done", "done"]
    with pytest.raises(ValueError, match=r"max_concurrency=\.\.\.\) is not supported with input_files"):
        crew.kickoff_for_each([{"topic": "a", "length": "s"}], {"notes": str(notes)}, max_concurrency=2)


def test_agent_kickoff_takes_input_files_and_refuses_a_checkpoint(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text("month,sales\njan,10\n", encoding="utf-8")
    llm = FakeLLM(default="sales rose")
    agent = Agent(role="Analyst", goal="analyse", backstory="b", llm=llm)
    assert agent.kickoff("Summarise {data}", None, {"data": str(data)}).raw == "sales rose"
    assert "month,sales" in llm.calls[-1].prompt
    assert asyncio.run(agent.akickoff("again")).raw == "sales rose"
    with pytest.raises(ValueError, match="from_checkpoint"):
        agent.kickoff("x", from_checkpoint=object())


def test_task_key_prompt_copy_and_async_execute() -> None:
    first = Agent(role="Writer", goal="write", backstory="b", llm=FakeLLM(default="old"))
    research = Task(description="Research", expected_output="facts", agent=first)
    write = Task(description="Write", expected_output="an article", agent=first, context=[research])
    assert write.key == md5(b"Write|an article").hexdigest()
    assert "This is the expected criteria for your final answer: an article" in write.prompt()
    second = Agent(role="Writer", goal="write better", backstory="b", llm=FakeLLM(default="new"))
    research_copy = research.copy([second], {})
    write_copy = write.copy([second], {research.key: research_copy})
    assert write_copy.agent is second and write_copy.context == [research_copy] and write_copy.id != write.id
    out = asyncio.run(write_copy.aexecute_sync())
    assert out.raw == "new" and write_copy.output is out


def test_prompts_give_the_system_prompt_crewgraph_sends() -> None:
    from crewgraph.utilities.prompts import Prompts

    llm = FakeLLM(default="ok")
    agent = Agent(role="Writer", goal="write", backstory="seasoned", llm=llm)
    parts = Prompts(agent=agent, use_system_prompt=True).task_execution()
    Crew(agents=[agent], tasks=[Task(description="Write", expected_output="text", agent=agent)]).kickoff()
    assert parts["system"] == llm.calls[0].messages[0]["content"]  # type: ignore[typeddict-item]
    assert "{input}" in parts["user"] and parts["prompt"].startswith(parts["system"])  # type: ignore[typeddict-item]
    assert set(Prompts(agent=agent).task_execution()) == {"prompt"}
    with pytest.raises(ValueError, match="prompt_template is not supported"):
        Prompts(agent=agent, prompt_template="{{ .Prompt }}")
