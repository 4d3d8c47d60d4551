"""``CREWGRAPH_LLM`` / ``--llm`` replace every model of the process: a crew's, and a script's own
``LLM(...)``, model strings and custom clients (crewgraph.llm.override)."""

from __future__ import annotations

import pytest

from crewgraph import LLM, Agent, Crew, Task
from crewgraph.llm.override import model_override, overriding
from crewgraph.testing import FakeLLM
from crewgraph.testing.demo_model import DEMO_PREFIX


def test_the_variable_replaces_a_scripts_own_llm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CREWGRAPH_LLM", "fake")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    reply = LLM(model="gpt-4o", base_url="http://127.0.0.1:9/v1").call("Current Task: greet")
    assert str(reply) == f"{DEMO_PREFIX} greet"
    assert model_override() is model_override()  # one demo model per value


def test_overriding_reaches_model_strings_and_custom_clients(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CREWGRAPH_LLM", raising=False)
    own = FakeLLM(["the agent's own model answered"])
    a = Agent(role="R", goal="g", backstory="b", llm=own)
    b = Agent(role="S", goal="g", backstory="b", llm="gpt-4o")
    crew = Crew(agents=[a, b], tasks=[Task(description="one", expected_output="x", agent=a),
                                      Task(description="two", expected_output="x", agent=b)])
    with overriding("fake") as demo:
        out = crew.kickoff()
    assert out.raw == f"{DEMO_PREFIX} two" and out.tasks_output[0].raw == f"{DEMO_PREFIX} one"
    assert own.call_count == 0 and demo is not None and demo.call_count == 2  # type: ignore[attr-defined]
    assert model_override() is None  # the block ended


def test_an_empty_model_name_is_refused() -> None:
    from crewgraph.llm.override import build_override

    with pytest.raises(ValueError, match="a model name or 'fake' is needed"):
        build_override("  ")
