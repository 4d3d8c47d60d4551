"""Agent(checkpoint=CheckpointConfig) on a solo kickoff, and Agent.from_checkpoint / Agent.fork."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crewgraph import LLM, Agent, Crew, Task
from crewgraph.state import CheckpointConfig
from crewgraph.testing import FakeLLM


def test_solo_kickoff_writes_a_checkpoint_and_the_agent_is_restored(tmp_path: Path) -> None:
    location = tmp_path / "agent_cp"
    agent = Agent(role="Analyst", goal="Answer", backstory="Careful", llm=FakeLLM(["42"]), max_iter=7,
                  checkpoint=CheckpointConfig(location=str(location)))
    assert agent.kickoff("What is six times seven?").raw == "42"
    [written] = list((location / "main").glob("*.json"))
    record = json.loads(written.read_text())["entities"][0]
    assert record["entity_type"] == "crew" and record["agent_records"][0]["role"] == "Analyst"

    restored = Agent.from_checkpoint(CheckpointConfig(restore_from=str(written)))
    assert (restored.role, restored.goal, restored.max_iter) == ("Analyst", "Answer", 7)
    assert restored.checkpoint.restore_from is None and restored.checkpoint.location == str(location)
    again = restored.model_copy(update={"llm": FakeLLM(["43"])}).kickoff("And six times seven plus one?")
    assert again.raw == "43"
    assert len(list((location / "main").glob("*.json"))) == 2  # the new run's checkpoint, beside the first

    forked = Agent.fork(CheckpointConfig(restore_from=str(written)), branch="what-if")
    forked.model_copy(update={"llm": FakeLLM(["44"])}).kickoff("Once more")
    assert len(list((location / "what-if").glob("*.json"))) == 1


def test_the_model_name_is_kept_and_a_crew_checkpoint_needs_crew_from_checkpoint(tmp_path: Path) -> None:
    location = tmp_path / "cp"
    fake = FakeLLM(["a", "b"])
    one = Agent(role="A", goal="g", backstory="b", llm=fake)
    two = Agent(role="B", goal="g", backstory="b", llm=fake)
    Crew(agents=[one, two], tasks=[Task(description="x", expected_output="y", agent=one),
                                   Task(description="z", expected_output="w", agent=two)],
         checkpoint=CheckpointConfig(location=str(location))).kickoff()
    first = sorted((location / "main").glob("*.json"))[0]
    with pytest.raises(ValueError, match=r"2 agents.*Crew\.from_checkpoint"):
        Agent.from_checkpoint(CheckpointConfig(restore_from=str(first)))

    named = Agent(role="N", goal="g", backstory="b", llm=LLM(model="openai/gpt-4o-mini"))
    from crewgraph.state.runtime import entity_record

    assert entity_record(named)["agent"]["llm"] == "openai/gpt-4o-mini"
