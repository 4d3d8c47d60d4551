"""A resumed crew takes exactly the branches the first run took: a ConditionalTask's condition
is not asked again (it would answer differently the second time)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, CrewGraphError, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.outputs import TaskOutput
from crewgraph.tasks.conditional_task import ConditionalTask
from crewgraph.testing import FakeLLM


def _crew(llm: Any, db: Path, verdicts: list[bool], asked: list[str]) -> Crew:
    agent = Agent(role="R", goal="g", llm=llm, max_retry_limit=0)

    def condition(output: TaskOutput) -> bool:
        asked.append(output.raw)
        return verdicts.pop(0)

    return Crew(
        agents=[agent],
        tasks=[
            Task(name="find", description="Find items", expected_output="x", agent=agent),
            ConditionalTask(name="more", description="Find more", expected_output="x", agent=agent,
                            condition=condition),
            Task(name="write", description="Write it", expected_output="x", agent=agent),
        ],
        checkpoint=CheckpointConfig(path=db),
    )


@pytest.mark.parametrize("first_verdict", [True, False])
def test_a_conditional_task_is_not_decided_again_on_resume(tmp_path: Path, first_verdict: bool) -> None:
    db, asked = tmp_path / "cp.db", []
    first = ["found few", "more found"] if first_verdict else ["found plenty"]
    with pytest.raises(CrewGraphError) as info:
        _crew(FakeLLM([*first, RuntimeError("down")]), db, [first_verdict], asked).kickoff()
    run_id = info.value.run_id  # type: ignore[attr-defined]
    assert len(asked) == 1

    llm = FakeLLM(["the report"])
    out = _crew(llm, db, [not first_verdict], asked).kickoff(from_checkpoint=run_id)
    assert len(asked) == 1  # the condition was not called again (it would now say the opposite)
    assert out.raw == "the report" and len(llm.calls) == 1  # only "write" ran
    assert out.graph.record("t2_more.condition").status == "restored"
    if first_verdict:
        assert out.tasks_output[1].raw == "more found"
        assert out.graph.record("t2_more.agent").status == "restored"
    else:
        assert out.tasks_output[1].raw == ""  # CrewAI's skipped output, as in the first run
        assert out.graph.record("t2_more.agent").status == "skipped"
