"""Crew.train: a person reviews each iteration's tasks; the reviews become per-role suggestions
that later kickoffs put into the agent's prompt (CrewAI's training, offline with FakeLLM)."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.events.training_events import (
    CrewTrainCompletedEvent,
    CrewTrainFailedEvent,
    CrewTrainStartedEvent,
)
from crewgraph.testing import FakeLLM
from crewgraph.training import (
    TRAINED_AGENTS_DATA_FILE,
    TRAINING_DATA_FILE,
    CrewTrainingHandler,
    TrainingFileError,
)
from crewgraph.training.evaluation import TrainingTaskEvaluation


class Human:
    """An input provider answering from a script; remembers what it was shown."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.answers.pop(0) if self.answers else ""


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the training files live in the working directory, as CrewAI's


def _crew(llm: Any, human: Human, **kw: Any) -> Crew:
    writer = Agent(role="Writer", goal="Write about {topic}", llm=llm, max_retry_limit=0)
    task = Task(name="draft", description="Draft a haiku about {topic}", expected_output="haiku", agent=writer)
    return Crew(agents=[writer], tasks=[task], input_provider=human, **kw)


def _lesson(**kw: Any) -> TrainingTaskEvaluation:
    base = {"suggestions": ["Mention the season", "Use five syllables first"], "quality": 8.0,
            "final_summary": "1. name the season 2. count syllables"}
    return TrainingTaskEvaluation(**{**base, **kw})


def test_train_records_reviews_and_saves_suggestions_by_role(tmp_path: Path) -> None:
    human = Human("name the season", "shorter please")
    llm = FakeLLM(["first haiku", "autumn haiku", "second haiku", "short haiku", _lesson()])
    crew = _crew(llm, human)
    events: list[Any] = []
    with crewgraph_event_bus.scoped_handlers():
        for cls in (CrewTrainStartedEvent, CrewTrainCompletedEvent):
            crewgraph_event_bus.on(cls)(lambda _src, ev: events.append(ev))
        crew.train(n_iterations=2, filename="my_model.pkl", inputs={"topic": "leaves"})

    # each iteration: the first answer was shown once, the feedback made the agent revise once
    assert len(human.prompts) == 2
    assert "first haiku" in human.prompts[0] and "second haiku" in human.prompts[1]
    assert llm.calls[1].messages[-1]["content"] == "Human feedback on your answer: name the season"
    # the second iteration's prompt carries the first iteration's feedback
    assert "You MUST follow these instructions: \n - name the season" in llm.calls[2].prompt
    assert "You MUST follow" not in llm.calls[0].prompt

    session = CrewTrainingHandler(TRAINING_DATA_FILE).load()
    writer = crew.agents[0]
    assert session[str(writer.id)] == {
        0: {"initial_output": "first haiku", "human_feedback": "name the season", "improved_output": "autumn haiku"},
        1: {"initial_output": "second haiku", "human_feedback": "shorter please", "improved_output": "short haiku"},
    }
    # the judge (the agent's model) saw every review and answered with suggestions, saved by role
    judge = llm.calls[4]
    assert judge.response_model is TrainingTaskEvaluation
    assert "name the season" in judge.prompt and "short haiku" in judge.prompt
    with open(tmp_path / "my_model.pkl", "rb") as f:
        trained = pickle.load(f)
    assert trained == {"Writer": _lesson().model_dump()}
    assert [type(e) for e in events] == [CrewTrainStartedEvent, CrewTrainCompletedEvent]
    assert crew._train is False


def test_later_kickoffs_use_the_trained_suggestions(tmp_path: Path) -> None:
    CrewTrainingHandler(TRAINED_AGENTS_DATA_FILE).save_trained_data("Writer", _lesson().model_dump())
    llm = FakeLLM(["a haiku"])
    out = _crew(llm, Human()).kickoff(inputs={"topic": "rain"})
    assert out.raw == "a haiku"
    prompt = llm.calls[0].messages[1]["content"]
    assert prompt.endswith("You MUST follow these instructions: \n - Mention the season\n - Use five syllables first")
    # another role gets nothing
    other = FakeLLM(["x"])
    agent = Agent(role="Editor", goal="Edit", llm=other)
    Crew(agents=[agent], tasks=[Task(description="Edit", expected_output="text", agent=agent)]).kickoff()
    assert "You MUST follow" not in other.calls[0].prompt


def test_training_to_the_default_file_is_what_kickoffs_read(tmp_path: Path) -> None:
    llm = FakeLLM(["draft", "better", _lesson(suggestions=["Rhyme"]), "rhyming haiku"])
    crew = _crew(llm, Human("make it rhyme"))
    crew.train(n_iterations=1, filename=TRAINED_AGENTS_DATA_FILE, inputs={"topic": "sea"})
    crew.input_provider = Human()
    crew.kickoff(inputs={"topic": "sea"})
    assert llm.calls[-1].messages[1]["content"].endswith("You MUST follow these instructions: \n - Rhyme")
    assert not llm.calls[-1].messages[-1]["content"].startswith("Human feedback")


def test_an_accepted_answer_teaches_nothing(tmp_path: Path) -> None:
    llm = FakeLLM(["fine haiku"])
    crew = _crew(llm, Human(""))
    crew.train(n_iterations=1, filename="t.pkl", inputs={"topic": "snow"})
    assert len(llm.calls) == 1  # no revision and no evaluation
    assert CrewTrainingHandler("t.pkl").load() == {}


@pytest.mark.parametrize(("n", "filename", "message"), [
    (0, "x.pkl", "n_iterations must be a positive integer"),
    (2.5, "x.pkl", "n_iterations must be a positive integer"),
    (1, "x.txt", "filename must end with .pkl"),
])
def test_bad_arguments_are_refused(n: Any, filename: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _crew(FakeLLM([]), Human()).train(n_iterations=n, filename=filename)


def test_a_failed_training_clears_both_files(tmp_path: Path) -> None:
    llm = FakeLLM(["draft", RuntimeError("model down")])
    crew = _crew(llm, Human("again"))
    failed: list[Any] = []
    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.on(CrewTrainFailedEvent)(lambda _src, ev: failed.append(ev))
        with pytest.raises(Exception, match="model down"):
            crew.train(n_iterations=1, filename="t.pkl", inputs={"topic": "x"})
    assert CrewTrainingHandler("t.pkl").load() == {} and CrewTrainingHandler(TRAINING_DATA_FILE).load() == {}
    assert failed and "model down" in failed[0].error
    assert crew._train is False


def test_a_pickle_holding_code_is_refused(tmp_path: Path) -> None:
    class Evil:
        def __reduce__(self) -> Any:
            return (print, ("pwned",))

    (tmp_path / TRAINED_AGENTS_DATA_FILE).write_bytes(pickle.dumps({"Writer": Evil()}))
    with pytest.raises(TrainingFileError, match="not a crewgraph/CrewAI training file"):
        _crew(FakeLLM(["x"]), Human()).kickoff(inputs={"topic": "x"})
