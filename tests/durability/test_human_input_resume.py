"""Task(human_input=True) end to end: the provider is asked, feedback re-runs the agent, resume never re-asks."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, CrewGraphError, Process, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.testing import FakeLLM


class Human:
    """An input provider that answers from a script and remembers the prompts."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.answers.pop(0) if self.answers else ""


def _crew(llm: Any, **kw: Any) -> Crew:
    agent = Agent(role="Writer", goal="Write", llm=llm, max_retry_limit=0)
    tasks = [
        Task(name="draft", description="Draft a haiku", expected_output="haiku", agent=agent, human_input=True),
        Task(name="title", description="Title it", expected_output="title", agent=agent),
    ]
    return Crew(agents=[agent], tasks=tasks, **kw)


def test_feedback_reruns_the_agent_until_accepted() -> None:
    human = Human("make it about autumn", "")
    llm = FakeLLM(["spring haiku", "autumn haiku", "Leaves"])
    out = _crew(llm, input_provider=human).kickoff()
    assert out.tasks_output[0].raw == "autumn haiku" and out.raw == "Leaves"
    assert len(human.prompts) == 2
    assert "spring haiku" in human.prompts[0] and "autumn haiku" in human.prompts[1]
    assert "Writer" in human.prompts[0] and "'draft'" in human.prompts[0]
    redo = llm.calls[1]
    assert redo.messages[-2] == {"role": "assistant", "content": "spring haiku"}
    assert redo.messages[-1]["content"] == "Human feedback on your answer: make it about autumn"
    assert "autumn haiku" in llm.calls[2].prompt  # the accepted answer is the next task's context


def test_stdin_is_the_default_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []

    def fake_input(prompt: str = "") -> str:
        asked.append(prompt)
        return ""

    monkeypatch.setattr(builtins, "input", fake_input)
    out = _crew(FakeLLM(["haiku", "T"])).kickoff()
    assert out.tasks_output[0].raw == "haiku" and len(asked) == 1


def test_manager_task_with_human_input() -> None:
    human = Human("shorter", "")
    manager = FakeLLM(["a long answer", "short"])
    crew = Crew(
        agents=[Agent(role="Helper", goal="g", llm=FakeLLM([]))],
        tasks=[Task(description="Answer", expected_output="x", human_input=True)],
        process=Process.hierarchical,
        manager_llm=manager,
        input_provider=human,
    )
    assert crew.kickoff().raw == "short" and len(human.prompts) == 2


def test_resumed_run_does_not_ask_again_for_a_finished_task(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    first_human = Human("")
    with pytest.raises(CrewGraphError) as info:
        _crew(FakeLLM(["haiku", RuntimeError("down")]), input_provider=first_human,
              checkpoint=CheckpointConfig(path=db)).kickoff()
    assert len(first_human.prompts) == 1
    second_human = Human()
    out = _crew(FakeLLM(["T"]), input_provider=second_human, checkpoint=CheckpointConfig(path=db)).kickoff(
        from_checkpoint=info.value.run_id  # type: ignore[attr-defined]
    )
    assert out.raw == "T" and second_human.prompts == []
