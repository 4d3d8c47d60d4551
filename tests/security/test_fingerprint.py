"""``crewgraph.security`` (CrewAI's ``crewai.security``): fingerprints on agents, tasks and crews."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from crewgraph import Agent, Crew, Task
from crewgraph.security import Fingerprint, SecurityConfig
from crewgraph.testing import FakeLLM


def _agent(**kwargs: object) -> Agent:
    return Agent(role="Writer", goal="Write", backstory="b", llm=FakeLLM(default="x"), **kwargs)


def test_a_seeded_fingerprint_is_deterministic_and_crewais_uuid() -> None:
    one, two = Fingerprint.generate(seed="writer"), Fingerprint.generate(seed="writer")
    assert one == two and one.uuid_str == str(one) == str(one.uuid)
    # UUID v5 in CrewAI's namespace: the same UUID CrewAI gives this seed
    assert one.uuid.version == 5
    assert Fingerprint.generate(seed="editor") != one
    assert Fingerprint() != Fingerprint()  # unseeded: random


def test_round_trip_through_a_dict() -> None:
    made = Fingerprint.generate(seed="s", metadata={"team": "docs", "tags": {"tier": 1}})
    back = Fingerprint.from_dict(made.to_dict())
    assert back == made and back.metadata == made.metadata and back.created_at == made.created_at
    assert Fingerprint.from_dict({}) != made


@pytest.mark.parametrize("metadata", [{1: "x"}, {"a": {"b": {"c": 1}}}, {"big": "x" * 20_000}, "text"])
def test_bad_metadata_is_refused(metadata: object) -> None:
    with pytest.raises(ValidationError, match="metadata"):
        Fingerprint(metadata=metadata)  # type: ignore[arg-type]


def test_every_component_has_its_own_fingerprint() -> None:
    a = _agent()
    t = Task(description="d", expected_output="e", agent=a)
    c = Crew(agents=[a], tasks=[t])
    prints = {a.fingerprint, t.fingerprint, c.fingerprint}
    assert len(prints) == 3
    assert a.fingerprint is a.security_config.fingerprint


def test_security_config_accepts_a_seed_a_dict_or_none() -> None:
    a = _agent(security_config=SecurityConfig(fingerprint="writer-1"))
    assert a.fingerprint == Fingerprint.generate(seed="writer-1")
    b = _agent(security_config={"fingerprint": "writer-1"})
    assert b.fingerprint == a.fingerprint
    assert isinstance(_agent(security_config=None).fingerprint, Fingerprint)
    with pytest.raises(ValidationError, match="fingerprint must be"):
        SecurityConfig(fingerprint=42)  # type: ignore[arg-type]


def test_set_fingerprint_and_a_kickoff() -> None:
    a = _agent()
    fixed = Fingerprint.generate(seed="stable")
    a.set_fingerprint(fixed)
    assert a.fingerprint == fixed
    crew = Crew(agents=[a], tasks=[Task(description="d", expected_output="e", agent=a)])
    assert crew.kickoff().raw == "x"
