"""Crew.replay(task_id): re-run from a task of the last kickoff, reusing the earlier outputs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.runner.replay import ReplayError
from crewgraph.testing import FakeLLM


def _crew(llm: Any, **kw: Any) -> Crew:
    agent = Agent(role="Writer", goal="Write", llm=llm)
    return Crew(name="replayed", agents=[agent], tasks=[
        Task(name="outline", description="Outline {topic}", expected_output="outline", agent=agent),
        Task(name="draft", description="Draft {topic}", expected_output="draft", agent=agent),
        Task(name="title", description="Title it", expected_output="title", agent=agent),
    ], **kw)


def test_replay_of_the_last_kickoff_in_this_process() -> None:
    llm = FakeLLM(["outline A", "draft A", "title A", "draft B", "title B"])
    crew = _crew(llm)
    crew.kickoff(inputs={"topic": "tea"})
    out = crew.replay(str(crew.tasks[1].id))
    assert [t.raw for t in out.tasks_output] == ["outline A", "draft B", "title B"]
    assert len(llm.calls) == 5  # the outline was not asked again
    assert "Draft tea" in llm.calls[3].prompt and "outline A" in llm.calls[3].prompt  # stored inputs, context


def test_replay_from_the_checkpoint_store_in_a_new_crew(tmp_path: Path) -> None:
    config = CheckpointConfig(path=tmp_path / "runs.db")
    first = _crew(FakeLLM(["outline A", "draft A", "title A"]), checkpoint=config)
    first.kickoff(inputs={"topic": "tea"})
    recorded_id = str(first.tasks[2].id)
    llm = FakeLLM(["title C"])
    again = _crew(llm, checkpoint=config)  # another process would build it anew: new task ids
    out = again.replay(recorded_id)
    assert [t.raw for t in out.tasks_output] == ["outline A", "draft A", "title C"]
    assert len(llm.calls) == 1
    # by name or position too; the original run is untouched (replays are forks)
    out = _crew(FakeLLM(["draft D", "title D"]), checkpoint=config).replay("draft")
    assert [t.raw for t in out.tasks_output] == ["outline A", "draft D", "title D"]


def test_unknown_task_or_no_kickoff_is_a_clear_error(tmp_path: Path) -> None:
    crew = _crew(FakeLLM(["o", "d", "t"]))
    with pytest.raises(ReplayError, match="no kickoff to replay"):
        crew.replay("draft")
    crew.kickoff(inputs={"topic": "x"})
    with pytest.raises(ValueError, match="Task with id 'nope' not found in the crew's tasks"):
        crew.replay("nope")
    with pytest.raises(ReplayError, match="does not exist yet"):
        _crew(FakeLLM([]), checkpoint=CheckpointConfig(path=tmp_path / "none.db")).replay("draft")
