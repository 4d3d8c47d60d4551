"""A resumed run does not repeat the side effects of restored tasks (callbacks, events)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.events import TaskCompletedEvent
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.testing import FakeLLM


def test_restored_tasks_fire_no_callbacks_but_keep_their_output_file(tmp_path: Path) -> None:
    fired: list[str] = []
    events: list[Any] = []
    llm = FakeLLM(responses=["first", RuntimeError("boom"), "second"])
    agent = Agent(role="R", goal="g", llm=llm, max_retry_limit=0)
    t1 = Task(name="one", description="1", expected_output="x", agent=agent,
              callback=lambda o: fired.append(o.raw), output_file=str(tmp_path / "one.md"))
    t2 = Task(name="two", description="2", expected_output="x", agent=agent, callback=lambda o: fired.append(o.raw))
    crew = Crew(agents=[agent], tasks=[t1, t2], checkpoint=CheckpointConfig(path=tmp_path / "cp.db"))
    with pytest.raises(Exception, match="boom"):
        crew.kickoff()
    run_id = crew.list_checkpoints()[0].run_id
    (tmp_path / "one.md").unlink()
    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.on(TaskCompletedEvent)(lambda s, e: events.append(e.task_name))
        out = crew.kickoff(from_checkpoint=run_id)
    assert out.raw == "second"
    assert fired == ["first", "second"]
    assert events == ["two"]
    assert (tmp_path / "one.md").read_text() == "first"
