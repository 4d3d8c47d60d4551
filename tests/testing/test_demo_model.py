"""The demo model (``--llm fake``): tools once each with schema-built arguments, one delegation
per manager turn, structured outputs with non-empty values, and answers that say what it is."""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, Field

from crewgraph import Agent, Crew, Process, Task
from crewgraph.testing.demo_model import DEMO_PREFIX, demo_arguments, demo_instance, demo_model
from crewgraph.tools import BaseTool


class Colour(Enum):
    RED = "red"
    BLUE = "blue"


class Inner(BaseModel):
    name: str
    count: int


class Outline(BaseModel):
    title: str
    sections: list[str]
    scores: dict[str, float]
    inner: Inner
    items: list[Inner]
    colour: Colour
    mode: Literal["fast", "slow"]
    note: str | None = None
    done: bool = False


def test_structured_outputs_are_filled_with_non_empty_values() -> None:
    value = demo_instance(Outline)
    assert isinstance(value, Outline)
    assert value.title == "demo title" and value.sections == ["demo sections"]
    assert value.scores == {"demo scores": 1.0} and value.inner == Inner(name="demo name", count=1)
    assert value.items == [Inner(name="demo name", count=1)]
    assert value.colour is Colour.RED and value.mode == "fast" and value.note == "demo note" and value.done


def test_arguments_come_from_the_tool_schema() -> None:
    class Args(BaseModel):
        url: str
        limit: int = Field(ge=3)
        tags: list[str]
        kind: Literal["a", "b"]
        depth: int = 2

    args = demo_arguments(Args.model_json_schema())
    assert args == {"url": "https://example.com", "limit": 3, "tags": ["demo tags"], "kind": "a", "depth": 2}
    assert Args.model_validate(args)


class Counter(BaseTool):
    name: str = "counter"
    description: str = "Counts words."
    calls: list[str] = []

    def _run(self, text: str) -> str:
        self.calls.append(text)
        return f"{len(text.split())} words"


def test_each_offered_tool_is_called_once_then_it_answers() -> None:
    tool = Counter()
    model = demo_model()
    agent = Agent(role="Counter", goal="count", backstory="b", tools=[tool], llm=model)
    crew = Crew(agents=[agent], tasks=[Task(description="Count the words", expected_output="n", agent=agent)])
    out = crew.kickoff()
    assert tool.calls == ["demo text"]
    assert out.raw == f"{DEMO_PREFIX} Count the words"
    assert model.call_count == 2


def test_a_hierarchical_manager_delegates_once_per_task() -> None:
    model = demo_model()
    workers = [Agent(role=r, goal="g", backstory="b", llm=model) for r in ("Researcher", "Writer")]
    tasks = [Task(description=f"Task {i}", expected_output="x") for i in (1, 2)]
    crew = Crew(agents=workers, tasks=tasks, process=Process.hierarchical, manager_llm=model)
    out = crew.kickoff()
    assert out.raw.startswith(DEMO_PREFIX)
    delegated = [c for c in model.calls if "Your best answer to your coworker asking you this" in c.prompt]
    asked = [c for c in model.calls if "Delegate_work_to_coworker" in c.tool_names]
    assert delegated, "the manager delegated"
    # each manager turn offers the delegation tools; a delegated step never delegates further
    assert all("Delegate_work_to_coworker" not in c.tool_names for c in delegated)
    first_turns = [c for c in asked if not any(m.get("role") == "tool" for m in c.messages)]
    assert len(first_turns) == 2  # one manager conversation per task
