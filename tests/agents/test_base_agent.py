"""BaseAgent: a real abstract base a third-party agent subclasses and runs in a crew."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from pydantic import BaseModel

from crewgraph import Agent, CompileError, Crew, Process, Task
from crewgraph.agents.agent_builder.base_agent import BaseAgent
from crewgraph.testing import FakeLLM


class EchoAgent(BaseAgent):
    """A third-party agent: answers from its own code, no model."""

    prefix: str = "echo"
    calls: list[tuple[str, str | None, list[str]]] = []
    executor_tools: list[Any] | None = None

    def execute_task(self, task: Any, context: str | None = None, tools: list[Any] | None = None) -> str:
        self.calls.append((task.description, context, [t.name for t in tools or []]))
        return f"{self.prefix}: {task.description}"

    def create_agent_executor(self, tools: list[Any] | None = None) -> None:
        self.executor_tools = tools

    def get_delegation_tools(self, agents: Sequence[BaseAgent]) -> list[Any]:
        return []


def test_base_agent_is_abstract_and_agent_derives_from_it() -> None:
    with pytest.raises(TypeError, match="abstract"):
        BaseAgent(role="r", goal="g")  # type: ignore[abstract]

    class Half(BaseAgent):
        def execute_task(self, task: Any, context: str | None = None, tools: list[Any] | None = None) -> str:
            return ""

    with pytest.raises(TypeError, match="create_agent_executor"):
        Half(role="r", goal="g")  # type: ignore[abstract]
    assert issubclass(Agent, BaseAgent)
    assert isinstance(Agent(role="r", goal="g"), BaseAgent)


def test_third_party_agent_runs_in_a_crew_next_to_an_agent() -> None:
    echo = EchoAgent(role="Echo", goal="repeat", calls=[])
    writer = Agent(role="Writer", goal="write", llm=FakeLLM(default=lambda req: "final: " + req.messages[1]["content"][-60:]))
    t1 = Task(name="shout", description="Say {word}", expected_output="x", agent=echo)
    t2 = Task(name="write", description="Write it up", expected_output="x", agent=writer)
    out = Crew(agents=[echo, writer], tasks=[t1, t2]).kickoff({"word": "hello"})
    assert out.tasks_output[0].raw == "echo: Say hello" and out.tasks_output[0].agent == "Echo"
    assert echo.calls == [("Say hello", None, [])]
    assert out.graph.record("t1_shout.agent").kind == "external_agent"
    assert out.graph.record("t1_shout.agent").info["agent_class"] == "EchoAgent"
    # the next task read the third-party agent's answer as context
    assert "echo: Say hello" in writer.llm.calls[0].messages[1]["content"]  # type: ignore[union-attr]
    assert t1.output is not None and t1.output.raw == "echo: Say hello"


def test_third_party_agent_gets_context_structured_output_and_guardrail_feedback() -> None:
    class Answer(BaseModel):
        word: str

    replies = iter(['{"word": "no"}', '{"word": "yes"}'])

    class Scripted(EchoAgent):
        async def execute_task(self, task: Any, context: str | None = None, tools: list[Any] | None = None) -> str:
            self.calls.append((task.description, context, []))
            await asyncio.sleep(0)
            return next(replies)

    first = Agent(role="First", goal="g", llm=FakeLLM(["the facts"]))
    ext = Scripted(role="Ext", goal="g", calls=[])

    def says_yes(output: Any) -> tuple[bool, Any]:
        return (output.pydantic.word == "yes", "say yes")

    t1 = Task(name="facts", description="Facts", expected_output="x", agent=first)
    t2 = Task(name="judge", description="Judge", expected_output="x", agent=ext, output_pydantic=Answer,
              guardrail=says_yes)
    out = Crew(agents=[first, ext], tasks=[t1, t2]).kickoff()
    assert out.pydantic == Answer(word="yes")
    assert ext.calls[0][1] == "the facts"
    assert ext.calls[1][1] is not None and "It was not accepted: say yes" in ext.calls[1][1]


def test_delegating_to_a_third_party_agent_is_refused_at_compile() -> None:
    echo = EchoAgent(role="Echo", goal="g", calls=[])
    boss = Agent(role="Boss", goal="g", allow_delegation=True)
    crew = Crew(agents=[boss, echo], tasks=[Task(description="d", expected_output="x", agent=boss)])
    with pytest.raises(CompileError, match="'Echo' are third-party agents"):
        crew.compile()
    with pytest.raises(CompileError, match="cannot delegate to third-party agents"):
        Crew(agents=[echo], tasks=[Task(description="d", expected_output="x")], process=Process.hierarchical,
             manager_llm=FakeLLM(["x"])).compile()


def test_agents_contract_methods_are_real() -> None:
    a = Agent(role="Lead", goal="g", llm=FakeLLM(default="done"))
    b = Agent(role="Helper", goal="g")
    names = sorted(t.name for t in a.get_delegation_tools([a, b]))
    assert len(names) == 2 and all("coworker" in n.lower() or "delegate" in n.lower() or "ask" in n.lower() for n in names)
    assert a.execute_task(Task(description="Do it", expected_output="x"), context="some facts") == "done"
    assert "some facts" in a.llm.calls[0].messages[1]["content"]  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="not supported"):
        a.get_platform_tools(["gmail"])
