"""Tasks run through ``Agent.execute_task`` as in CrewAI: a subclass overriding it, or a patch of
it, is what does the work; ``super().execute_task`` runs the agent on the engine; duck-typed
agents work with ``Task.execute_sync``; ``Task.output`` is assignable."""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.outputs import TaskOutput
from crewgraph.testing import FakeLLM


def test_a_subclass_override_runs_and_super_reaches_the_engine() -> None:
    seen: list[tuple[str, str | None]] = []

    class Careful(Agent):
        def execute_task(self, task: Any, context: str | None = None, tools: list[Any] | None = None) -> str:
            seen.append((task.description, context))
            return "checked: " + super().execute_task(task, context, tools)

    llm = FakeLLM(["first answer", "second answer"])
    agent = Careful(role="Writer", goal="write", backstory="b", llm=llm)
    first = Task(description="Write one", expected_output="text", agent=agent)
    second = Task(description="Write two", expected_output="text", agent=agent)
    result = Crew(agents=[agent], tasks=[first, second]).kickoff()
    assert [t.raw for t in result.tasks_output] == ["checked: first answer", "checked: second answer"]
    assert seen[0] == ("Write one", None) and "checked: first answer" in (seen[1][1] or "")
    assert llm.call_count == 2  # the engine ran once per task, under the override


def test_patching_agent_execute_task_takes_effect() -> None:
    agent = Agent(role="Writer", goal="write", backstory="b", llm=FakeLLM([]))
    task = Task(description="Write", expected_output="text", agent=agent)
    with patch.object(Agent, "execute_task", return_value="patched answer") as mocked:
        result = Crew(agents=[agent], tasks=[task]).kickoff()
    assert result.raw == "patched answer" and mocked.call_count == 1
    assert mocked.call_args.args[0].description == "Write"


def test_an_async_override_is_awaited_and_guardrails_still_apply() -> None:
    class AsyncAgent(Agent):
        async def aexecute_task(self, task: Any, context: str | None = None, tools: list[Any] | None = None) -> str:
            return "short" if "not accepted" not in (context or "") else "a much longer answer"

    agent = AsyncAgent(role="Writer", goal="write", backstory="b", llm=FakeLLM([]))
    task = Task(description="Write", expected_output="text", agent=agent,
                guardrail=lambda out: (True, out) if len(out.raw) > 10 else (False, "too short"))
    assert Crew(agents=[agent], tasks=[task]).kickoff().raw == "a much longer answer"


def test_execute_sync_accepts_a_duck_typed_agent_and_output_is_assignable() -> None:
    class Duck:
        role = "Duck"

        def execute_task(self, task: Any, context: str | None = None, tools: list[Any] | None = None) -> str:
            return f"quack about {task.description} ({context})"

    task = Task(description="ponds", expected_output="a quack")
    out = task.execute_sync(agent=Duck(), context="it rained")
    assert out.raw == "quack about ponds (it rained)" and out.agent == "Duck"
    assert task.output is out
    task.output = TaskOutput(description="ponds", raw="replaced", agent="Duck")
    assert task.output.raw == "replaced"
    with pytest.raises(TypeError, match=r"Task\.output must be a TaskOutput"):
        task.output = "text"  # type: ignore[assignment]
    with pytest.raises(TypeError, match="execute_task"):
        task.execute_sync(agent=object())  # type: ignore[arg-type]
