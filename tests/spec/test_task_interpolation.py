"""CrewAI's ``Task.interpolate_inputs_and_add_conversation_history`` and the
``crew_chat_messages`` kickoff input (the conversation a chat-started crew runs for)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.errors import CompileError
from crewgraph.testing import FakeLLM

CHAT = json.dumps([
    {"role": "user", "content": "I need a summary of solar panels."},
    {"role": "assistant", "content": "For a home or a business?"},
    {"role": "system"},  # no content: left out, as in CrewAI
    {"role": "user", "content": "For my home."},
])


def _agent(llm: FakeLLM) -> Agent:
    return Agent(role="Writer", goal="Write", backstory="Writes.", llm=llm, max_retry_limit=0)


def test_a_task_filled_by_hand_runs_alone_with_its_texts_filled(tmp_path: Path) -> None:
    llm = FakeLLM(["an essay"])
    task = Task(description="Write about {topic} for {reader}", expected_output="{words} words",
                output_file=str(tmp_path / "{topic}.md"), agent=_agent(llm))
    task.interpolate_inputs_and_add_conversation_history({"topic": "bees", "reader": "kids", "words": 100})
    assert (task.description, task.expected_output) == ("Write about bees for kids", "100 words")
    assert task.output_file == str(tmp_path / "bees.md")
    out = task.execute_sync()
    assert out.raw == "an essay" and (tmp_path / "bees.md").read_text() == "an essay"
    prompt = str(llm.calls[0].messages[1]["content"])
    assert "Write about bees for kids" in prompt and "100 words" in prompt

    # a second call fills the texts as first written again, with the new inputs
    task.interpolate_inputs_and_add_conversation_history({"topic": "ants", "reader": "adults", "words": 5})
    assert (task.description, task.output_file) == ("Write about ants for adults", str(tmp_path / "ants.md"))
    task.interpolate_inputs_and_add_conversation_history({})  # nothing given: nothing changes
    assert task.description == "Write about ants for adults"


def test_a_missing_input_names_the_variable_and_the_field() -> None:
    task = Task(description="Write about {topic}", expected_output="About {length}")
    with pytest.raises(ValueError, match=r"'length' in expected_output of task"):
        task.interpolate_inputs_and_add_conversation_history({"topic": "bees"})
    assert task.description == "Write about {topic}"  # nothing half-filled


def test_the_conversation_goes_after_the_description_by_hand_and_at_kickoff() -> None:
    task = Task(description="Summarise {topic}", expected_output="A summary")
    task.interpolate_inputs_and_add_conversation_history({"topic": "solar", "crew_chat_messages": CHAT})
    head, history = task.description.split("\n\n", 1)
    assert head == "Summarise solar"
    assert history.endswith("User: I need a summary of solar panels.\nAssistant: For a home or a business?\n"
                            "User: For my home.")

    llm = FakeLLM(["a summary"])
    agent = _agent(llm)
    crew = Crew(agents=[agent], tasks=[Task(description="Summarise {topic}", expected_output="A summary", agent=agent)])
    out = crew.kickoff(inputs={"topic": "solar", "crew_chat_messages": CHAT})
    prompt = str(llm.calls[0].messages[1]["content"])
    assert "Summarise solar\n\n" in prompt and "Assistant: For a home or a business?\nUser: For my home." in prompt
    assert out.tasks_output[0].description.startswith("Summarise solar\n\n")
    assert "User: For my home." in out.tasks_output[0].description


@pytest.mark.parametrize(("value", "why"), [("not json", "is not JSON"), ('{"role": "user"}', "JSON dict")])
def test_a_conversation_that_is_not_a_list_of_messages_is_refused_at_kickoff(value: str, why: str) -> None:
    llm = FakeLLM(["never"])
    agent = _agent(llm)
    crew = Crew(agents=[agent], tasks=[Task(description="Summarise", expected_output="A summary", agent=agent)])
    with pytest.raises(CompileError, match=f"crew_chat_messages.*{why}"):
        crew.kickoff(inputs={"crew_chat_messages": value})
    assert llm.calls == []
