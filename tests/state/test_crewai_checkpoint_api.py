"""CrewAI 1.15's checkpoint API (``crewgraph.state``) over crewgraph's one checkpoint store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import SQLiteCheckpointStore, list_checkpoints
from crewgraph.errors import CrewGraphError
from crewgraph.state import CheckpointConfig, JsonProvider, SqliteProvider
from crewgraph.testing import FakeLLM


def build_crew(llm: Any, checkpoint: Any) -> Crew:
    researcher = Agent(role="Researcher", goal="Research", backstory="Expert", llm=llm, max_retry_limit=0)
    writer = Agent(role="Writer", goal="Write", backstory="Expert", llm=llm, max_retry_limit=0)
    return Crew(
        name="trends",
        agents=[researcher, writer],
        tasks=[
            Task(description="Research AI trends", agent=researcher, expected_output="bullets"),
            Task(description="Write a summary", agent=writer, expected_output="paragraph"),
        ],
        checkpoint=checkpoint,
    )


def _fail_after_research(checkpoint: Any) -> str:
    with pytest.raises(CrewGraphError) as info:
        build_crew(FakeLLM(["- bullets", RuntimeError("provider down")]), checkpoint).kickoff()
    return str(info.value.run_id)  # type: ignore[attr-defined]


def test_json_provider_resume_from_checkpoint_and_one_store(tmp_path: Path) -> None:
    location = tmp_path / "my_checkpoints"
    config = CheckpointConfig(location=str(location), provider=JsonProvider(), max_checkpoints=5)
    run_id = _fail_after_research(config)
    db = location / "checkpoints.db"
    [listed] = list_checkpoints(db)  # what `crewgraph checkpoints list` and the UI read
    assert listed.run_id == run_id and listed.name == "trends"

    llm = FakeLLM(["the summary"])
    out = build_crew(llm, config).kickoff(
        from_checkpoint=CheckpointConfig(location=str(location), restore_from=f"{location}/{run_id}")
    )
    assert out.raw == "the summary" and out.run_id == run_id
    assert len(llm.calls) == 1  # the research task was restored, not re-run
    assert "- bullets" in llm.calls[0].prompt
    with SQLiteCheckpointStore(db) as store:
        assert store.get_run(run_id).status == "completed"
        assert [r.run_id for r in store.list_runs()] == [run_id]  # recorded once


def test_sqlite_provider_from_checkpoint_classmethod_and_fork(tmp_path: Path) -> None:
    db = tmp_path / ".checkpoints.db"
    config = CheckpointConfig(location=str(db), provider=SqliteProvider())
    run_id = _fail_after_research(config)

    crew = build_crew(FakeLLM(["forked summary"]), config)
    forked = Crew.fork(
        CheckpointConfig(location=str(db), provider=SqliteProvider(), restore_from=run_id),
        branch="experiment-a", factory=lambda: crew,
    ).kickoff()
    assert forked.raw == "forked summary" and forked.run_id != run_id
    with SQLiteCheckpointStore(db) as store:
        info = store.get_run(forked.run_id)
        assert info.parent_run_id == run_id and info.branch == "experiment-a"
        assert store.get_run(run_id).status == "failed"  # the original stays as it was

    resumed = build_crew(FakeLLM(["resumed summary"]), config).kickoff(
        from_checkpoint=CheckpointConfig(location=str(db), provider=SqliteProvider(), restore_from=run_id)
    )
    assert resumed.raw == "resumed summary"

    again = Crew.from_checkpoint(
        CheckpointConfig(location=str(db), provider=SqliteProvider(), restore_from=forked.run_id),
        factory=lambda: build_crew(FakeLLM([]), config),
    ).kickoff()
    assert again.raw == "forked summary"  # every task restored


def test_a_location_alone_resumes_the_latest_run(tmp_path: Path) -> None:
    location = tmp_path / "cp"
    config = CheckpointConfig(location=str(location))
    run_id = _fail_after_research(config)
    out = build_crew(FakeLLM(["latest"]), config).kickoff(
        from_checkpoint=CheckpointConfig(location=str(location), restore_from=str(location))
    )
    assert out.raw == "latest" and out.run_id == run_id


def test_what_crewgraph_does_not_do_is_refused() -> None:
    with pytest.raises(ValidationError, match=r"llm_call_completed.*not supported"):
        CheckpointConfig(on_events=["llm_call_completed"])
    with pytest.raises(ValidationError):
        CheckpointConfig(location="x", unknown=True)  # type: ignore[call-arg]
    assert CheckpointConfig().location == "./.checkpoints" and CheckpointConfig().on_events == ["task_completed"]
    assert isinstance(CheckpointConfig().provider, JsonProvider)
    with pytest.raises(ValueError, match=r"restore_from must be set"):
        Agent.from_checkpoint(CheckpointConfig())
    with pytest.raises(ValueError, match=r"restore_from must be set"):
        Agent.fork(CheckpointConfig(), branch="b")
