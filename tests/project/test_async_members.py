"""Async ``@agent``/``@task`` methods work in ``@CrewBase``; ``@crew`` names the crew after its class."""

from __future__ import annotations

import asyncio

from crewgraph import Agent, Crew, Task
from crewgraph.project import CrewBase, agent, crew, task
from crewgraph.testing import FakeLLM


@CrewBase
class AsyncBuilt:
    agents_config = None
    tasks_config = None

    def __init__(self) -> None:
        self.llm = FakeLLM(default="async answer")

    @agent
    async def researcher(self) -> Agent:
        await asyncio.sleep(0)
        return Agent(role="Researcher", goal="g", llm=self.llm)

    @task
    async def research(self) -> Task:
        await asyncio.sleep(0)
        return Task(description="Research", expected_output="x", agent=self.researcher())

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks)


def test_async_members_are_built_and_memoized() -> None:
    built = AsyncBuilt()
    assert isinstance(built.researcher(), Agent) and built.researcher() is built.researcher()
    c = built.crew()
    assert c.tasks[0].name == "research" and c.tasks[0].agent is built.researcher()
    assert c.kickoff().raw == "async answer"


def test_async_members_inside_a_running_loop() -> None:
    async def main() -> Crew:
        return AsyncBuilt().crew()  # built on a worker loop, this loop is not blocked for long

    assert asyncio.run(main()).agents[0].role == "Researcher"


def test_crew_is_named_after_its_class_unless_named() -> None:
    assert AsyncBuilt().crew().name == "AsyncBuilt"

    @CrewBase
    class Named:
        agents_config = None
        tasks_config = None

        @crew
        def crew(self) -> Crew:
            a = Agent(role="R", goal="g")
            return Crew(name="mine", agents=[a], tasks=[Task(description="d", expected_output="x", agent=a)])

    assert Named().crew().name == "mine"
