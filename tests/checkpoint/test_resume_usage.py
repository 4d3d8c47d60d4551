"""A resumed run reports the whole run's token usage: restored nodes count what they spent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.errors import CrewGraphError
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import tool


@tool("lookup")
def lookup(topic: str) -> str:
    """Look a topic up."""
    return f"facts about {topic}"


SCRIPT: list[Any] = [FakeToolCall("lookup", {"topic": "AI"}), "research notes", "an outline", "the article"]


def _crew(llm: Any, path: Path | None) -> Crew:
    agent = Agent(role="Writer", goal="Write well", llm=llm, max_retry_limit=0, tools=[lookup])
    tasks = [
        Task(name=f"step{i + 1}", description=d, expected_output="text", agent=agent)
        for i, d in enumerate(("Research {topic}", "Outline", "Write"))
    ]
    checkpoint = CheckpointConfig(path=path) if path is not None else None
    return Crew(name="usage", agents=[agent], tasks=tasks, checkpoint=checkpoint)


def _uninterrupted() -> tuple[int, list[int]]:
    out = _crew(FakeLLM(list(SCRIPT)), None).kickoff({"topic": "AI"})
    return out.token_usage.total_tokens, [t.token_usage.total_tokens for t in out.tasks_output]


def test_resuming_a_completed_run_reports_its_whole_usage(tmp_path: Path) -> None:
    total, _ = _uninterrupted()
    db = tmp_path / "cp.db"
    first = _crew(FakeLLM(list(SCRIPT)), db).kickoff({"topic": "AI"})
    assert first.token_usage.total_tokens == total > 0
    llm = FakeLLM([])
    again = _crew(llm, db).kickoff(from_checkpoint=first.run_id)
    assert len(llm.calls) == 0  # nothing re-ran
    assert again.token_usage.total_tokens == total
    assert again.token_usage.model_dump() == first.token_usage.model_dump()


@pytest.mark.parametrize("fail_at", [2, 3])
def test_a_partial_resume_reports_the_uninterrupted_total(tmp_path: Path, fail_at: int) -> None:
    total, per_task = _uninterrupted()
    db = tmp_path / "cp.db"
    script = [*SCRIPT[: fail_at], RuntimeError("provider down")]  # tasks before fail_at finish
    with pytest.raises(CrewGraphError) as info:
        _crew(FakeLLM(script), db).kickoff({"topic": "AI"})
    run_id = info.value.run_id  # type: ignore[attr-defined]
    out = _crew(FakeLLM(list(SCRIPT[fail_at:])), db).kickoff(from_checkpoint=run_id)
    assert [t.token_usage.total_tokens for t in out.tasks_output] == per_task
    assert out.token_usage.total_tokens == total
