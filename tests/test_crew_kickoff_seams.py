"""``kickoff_async``, ``akickoff``, ``kickoff_for_each`` and ``kickoff_for_each_async`` go through
``Crew.kickoff`` / ``akickoff`` as in CrewAI, so overriding (or patching) kickoff takes effect;
``Crew(tasks=[])`` builds; ``kickoff_for_each`` runs a fresh manager per input."""

from __future__ import annotations

import asyncio
from typing import Any
from unittest.mock import patch

import pytest
from pydantic import ValidationError

from crewgraph import Agent, Crew, Process, Task
from crewgraph.outputs import CrewOutput
from crewgraph.testing import FakeLLM


def _crew(cls: type[Crew] = Crew) -> Crew:
    agent = Agent(role="Writer", goal="write", backstory="b", llm=FakeLLM(default="engine"))
    return cls(agents=[agent], tasks=[Task(description="Write {topic}", expected_output="text", agent=agent)])


class Audited(Crew):
    def kickoff(self, inputs: dict[str, Any] | None = None, *args: Any, **kwargs: Any) -> Any:
        out = super().kickoff(inputs, *args, **kwargs)
        return out.model_copy(update={"raw": f"audited {(inputs or {}).get('topic')}: {out.raw}"})


def test_every_kickoff_form_goes_through_an_overridden_kickoff() -> None:
    crew = _crew(Audited)
    assert crew.kickoff({"topic": "a"}).raw == "audited a: engine"
    assert asyncio.run(crew.kickoff_async({"topic": "b"})).raw == "audited b: engine"
    assert asyncio.run(crew.akickoff({"topic": "c"})).raw == "audited c: engine"
    assert [o.raw for o in crew.kickoff_for_each([{"topic": "d"}, {"topic": "e"}])] == [
        "audited d: engine", "audited e: engine"]
    outs = asyncio.run(crew.kickoff_for_each_async([{"topic": "f"}, {"topic": "g"}]))
    assert [o.raw for o in outs] == ["audited f: engine", "audited g: engine"]


def test_a_patched_kickoff_takes_effect_for_the_batch_forms() -> None:
    crew = _crew()
    fake = CrewOutput(raw="patched", tasks_output=[])
    with patch.object(Crew, "kickoff", return_value=fake) as mocked:
        assert [o.raw for o in crew.kickoff_for_each([{"topic": "x"}, {"topic": "y"}])] == ["patched", "patched"]
        assert asyncio.run(crew.kickoff_async({"topic": "z"})).raw == "patched"
    assert [c.kwargs.get("inputs", c.args[0] if c.args else None) for c in mocked.call_args_list][:2] == [
        {"topic": "x"}, {"topic": "y"}]
    assert crew.kickoff({"topic": "q"}).raw == "engine"  # unpatched again: the engine


def test_a_crew_without_tasks_builds_and_kickoff_reports_it() -> None:
    agent = Agent(role="Writer", goal="write", backstory="b", llm=FakeLLM(default="x"))
    crew = Crew(agents=[agent], tasks=[])
    with pytest.raises(ValidationError, match="at least one task"):
        crew.kickoff()


def test_kickoff_for_each_gives_each_input_its_own_manager() -> None:
    from crewgraph import runner

    worker = Agent(role="Worker", goal="work", backstory="b", llm=FakeLLM(default="done"))
    manager = Agent(role="Boss", goal="manage", backstory="b", llm=FakeLLM(default="managed"),
                    allow_delegation=True)
    crew = Crew(agents=[worker], tasks=[Task(description="Do {n}", expected_output="x")],
                process=Process.hierarchical, manager_agent=manager)
    managers: list[Any] = []
    real = runner.run_crew

    async def spy(run: Any, inputs: Any, **kw: Any) -> Any:
        managers.append(run.manager_agent)
        return await real(run, inputs, **kw)

    with patch.object(runner, "run_crew", spy):
        outs = crew.kickoff_for_each([{"n": 1}, {"n": 2}])
    assert [o.raw for o in outs] == ["managed", "managed"]
    assert len(managers) == 2 and managers[0].id != managers[1].id
    assert all(m.id != manager.id and m.role == "Boss" for m in managers)
    copy = crew.copy()
    assert copy.id != crew.id and copy.manager_agent is not None and copy.manager_agent.id != manager.id
    assert copy.tasks[0].id != crew.tasks[0].id and copy.agents[0].id != worker.id
