"""A crew with ``Task(human_input=True)`` and a persisted input provider pauses for the review
and resumes in another process, with no completed task or model call run again."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _forkserver import SHARED_PRELOAD, ForkServer

import crewgraph
from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig, SQLiteCheckpointStore
from crewgraph.errors import CheckpointError, ConfigurationError
from crewgraph.flow.human_feedback import PersistedInputProvider
from crewgraph.outputs import PendingCrewRun, TaskOutput
from crewgraph.testing import FakeLLM
from crewgraph.testing.openai_server import OpenAICompatServer

APPS = Path(__file__).resolve().parent / "apps"
APP = APPS / "review_crew.py"
REPO_ROOT = Path(crewgraph.__file__).resolve().parents[1]


def _writer(body: dict[str, Any]) -> str:
    """The model: answers from what it is asked, so every process gets the same replies."""
    messages = body["messages"]
    last = str(messages[-1]["content"])
    if "Human feedback on your answer: make it shorter" in last:
        return "Owls hunt at night."
    if "Human feedback on your answer: " in last:
        return "Owls: silent hunters of the night."
    task = str(messages[1]["content"])
    if "Title the post" in task:
        return "Night Owls"
    if "Draft a post" in task:
        return "Owls are birds of prey that mostly hunt at night, silently."
    return "owl notes"


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAICompatServer]:
    with OpenAICompatServer(default=_writer) as srv:
        yield srv


@pytest.fixture(scope="module")
def forks() -> Iterator[ForkServer]:
    """The processes below are forked from one interpreter that has imported crewgraph, the
    openai SDK these processes call the model with, and the CLI (2 - 3 s of CPU each under load
    when every process imported them itself); each is still a process of its own."""
    preload = [*SHARED_PRELOAD, "openai", "openai.resources.chat", "crewgraph.llm.openai_llm", "crewgraph.cli"]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    with ForkServer(preload, env=env, cwd=REPO_ROOT) as fs:
        yield fs


def _env(tmp: Path, server: OpenAICompatServer) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(APPS)]),
        "REVIEW_LLM_URL": server.base_url,
        "REVIEW_DB": str(tmp / "cp.db"),
    }


def _run(forks: ForkServer, env: dict[str, str], *args: str) -> dict[str, Any]:
    done = forks.run([str(APP), *args], cwd=REPO_ROOT, env=env, timeout=90)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _tasks_asked(server: OpenAICompatServer, since: int) -> list[str]:
    names = []
    for body in server.chat_requests[since:]:
        task = str(body["messages"][1]["content"])
        names.append("title" if "Title the post" in task else "draft" if "Draft a post" in task else "research")
    return names


def test_pause_then_resume_in_new_processes(tmp_path: Path, server: OpenAICompatServer, forks: ForkServer) -> None:
    env = _env(tmp_path, server)
    before = len(server.chat_requests)
    first = _run(forks, env, "start")
    assert first["pending"] is True and first["raw"] == "" and first["tasks"] == ["owl notes"]
    assert first["draft"].startswith("Owls are birds of prey")
    assert "Final answer of Writer for task 'draft'" in first["question"] and first["draft"] in first["question"]
    assert _tasks_asked(server, before) == ["research", "draft"]
    with SQLiteCheckpointStore(tmp_path / "cp.db") as store:
        assert store.get_run(first["run_id"]).status == "paused"

    # A second process: the feedback reaches the agent as CrewAI's human feedback does; it revises
    # its draft (one model call, nothing else re-run) and asks for another review.
    mark = len(server.chat_requests)
    second = _run(forks, env, "resume", first["run_id"][:10], "make it shorter")  # a unique prefix is enough
    assert second["pid"] != first["pid"] and second["run_id"] == first["run_id"]
    assert second["pending"] is True and second["draft"] == "Owls hunt at night."
    assert _tasks_asked(server, mark) == ["draft"]
    revision = server.chat_requests[mark]["messages"]
    assert revision[-2] == {"role": "assistant", "content": first["draft"]}
    assert revision[-1]["content"] == "Human feedback on your answer: make it shorter"

    # A third process, on the class: the crew is rebuilt from the factory the run recorded.
    # An empty answer accepts the draft: no revision, only the last task runs.
    mark = len(server.chat_requests)
    third = _run(forks, env, "class-resume", first["run_id"], "")
    assert third["pending"] is False and third["raw"] == "Night Owls"
    assert third["tasks"] == ["owl notes", "Owls hunt at night.", "Night Owls"]
    assert _tasks_asked(server, mark) == ["title"]
    assert "Owls hunt at night." in str(server.chat_requests[mark]["messages"][1]["content"])  # its context
    assert third["tokens"] > second["tokens"] > first["tokens"] > 0  # the whole run's usage
    with SQLiteCheckpointStore(tmp_path / "cp.db") as store:
        assert store.get_run(first["run_id"]).status == "completed"


def test_the_cli_answers_a_paused_crew(tmp_path: Path, server: OpenAICompatServer, forks: ForkServer,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    env = _env(tmp_path, server)
    # The run pauses here, in the test's process (a new process starting it is the test above's
    # job); every answer then comes from the CLI, each in a process of its own.
    monkeypatch.syspath_prepend(str(APPS))
    for name in ("REVIEW_LLM_URL", "REVIEW_DB"):
        monkeypatch.setenv(name, env[name])
    import review_crew

    paused = review_crew.build().kickoff(inputs={"topic": "owls"})
    assert paused.pending is True
    first = {"run_id": paused.run_id}
    cli = ["-m", "crewgraph.cli", "checkpoints", "resume", first["run_id"], "--db", str(tmp_path / "cp.db")]
    waiting = forks.run(cli, cwd=REPO_ROOT, env=env, timeout=90)
    assert waiting.returncode == 1 and "paused waiting for a review" in waiting.stderr
    assert "Traceback" not in waiting.stderr
    mark = len(server.chat_requests)
    done = forks.run([*cli, "--answer", "make it shorter"], cwd=REPO_ROOT, env=env, timeout=90)
    assert done.returncode == 0, done.stderr
    assert "paused" in done.stdout and f"crewgraph checkpoints resume {first['run_id']} --answer TEXT" in done.stdout
    assert "Owls hunt at night." in done.stdout
    last = forks.run([*cli, "-q", "--answer", ""], cwd=REPO_ROOT, env=env, timeout=90)
    assert last.returncode == 0, last.stderr
    assert last.stdout.strip() == "Night Owls"
    assert _tasks_asked(server, mark) == ["draft", "title"]


# ---------------------------------------------------------------------- in one process
def _crew(llm: Any, db: Path | None, provider: Any = "persisted", **kw: Any) -> Crew:
    agent = Agent(role="Writer", goal="Write", llm=llm, max_retry_limit=0)
    return Crew(
        agents=[agent],
        tasks=[
            Task(name="draft", description="Draft a haiku", expected_output="haiku", agent=agent, human_input=True),
            Task(name="title", description="Title it", expected_output="title", agent=agent),
        ],
        checkpoint=CheckpointConfig(path=db) if db is not None else None,
        input_provider=provider,
        **kw,
    )


def test_the_review_loops_until_accepted(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    llm = FakeLLM(["spring haiku", "autumn haiku", "winter haiku", "Leaves"])
    crew = _crew(llm, db, PersistedInputProvider())
    first = crew.kickoff()
    assert isinstance(first, PendingCrewRun) and first.pending and first.questions[0].task == "draft"
    assert "paused" in str(first) and first.question.endswith("press Enter to accept:")
    second = crew.resume(first.run_id, "autumn please")
    assert isinstance(second, PendingCrewRun) and second.questions[0].draft == "autumn haiku"
    assert second.questions[0].key != first.questions[0].key  # the second review of the step
    third = crew.resume(first.run_id, "now winter")
    assert isinstance(third, PendingCrewRun) and third.questions[0].draft == "winter haiku"
    out = crew.resume(first.run_id, "  ")  # blank accepts, as in CrewAI
    assert not out.pending and out.raw == "Leaves" and out.tasks_output[0].raw == "winter haiku"
    assert len(llm.calls) == 4
    feedback = [m["content"] for m in out.tasks_output[0].messages if m["role"] == "user"][1:]
    assert feedback == ["Human feedback on your answer: autumn please", "Human feedback on your answer: now winter"]


def test_resume_errors_are_clear(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    crew = _crew(FakeLLM(["haiku", "Title"]), db)
    first = crew.kickoff()
    with pytest.raises(CheckpointError, match=r"paused waiting for a review \(task 'draft'\)"):
        crew.resume(first.run_id)
    with pytest.raises(CheckpointError, match=f"no run 'nope'.*Most recent: {first.run_id}"):
        crew.resume("nope", "ok")
    assert crew.kickoff(from_checkpoint=first.run_id).pending  # no answer yet: asks again, no model call
    assert crew.resume(first.run_id, "").raw == "Title"
    with pytest.raises(CheckpointError, match="already completed"):
        crew.resume(first.run_id, "again")
    with pytest.raises(CheckpointError, match="no crew run 'x': there is no checkpoint database"):
        Crew.resume("x", "y", path=tmp_path / "missing.db")

    failing = _crew(FakeLLM([RuntimeError("down")]), db)
    with pytest.raises(crewgraph.CrewGraphError) as info:
        failing.kickoff()
    run_id = info.value.run_id  # type: ignore[attr-defined]
    with pytest.raises(CheckpointError, match=r"is not paused waiting for a review \(status 'failed'\)"):
        failing.resume(run_id, "feedback")
    assert _crew(FakeLLM(["haiku"]), db).resume(run_id).pending  # a failed run resumes, then pauses


def test_a_persisted_provider_needs_checkpointing() -> None:
    with pytest.raises(ConfigurationError, match=r"task 'draft' has human_input=True.*Crew\(checkpoint=True\)"):
        _crew(FakeLLM(["haiku"]), None).kickoff()


def test_input_provider_values_are_checked() -> None:
    with pytest.raises(ValueError, match="input_provider must be"):
        _crew(FakeLLM([]), None, provider="stdin")
    asked: list[str] = []

    class Asker:
        def ask(self, prompt: str, *, timeout: float | None = None) -> str:
            asked.append(prompt)
            return ""

    out = _crew(FakeLLM(["haiku", "T"]), None, provider=Asker()).kickoff()
    assert out.raw == "T" and len(asked) == 1  # an InputProvider object is asked, not paused


def test_parallel_reviews_are_answered_with_a_dict(tmp_path: Path) -> None:
    def reply(request: Any) -> str:
        return "draft of one" if "Task one" in request.messages[1]["content"] else "draft of two"

    agent = Agent(role="B", goal="g", llm=FakeLLM(default=reply))
    crew = Crew(
        agents=[agent],
        tasks=[Task(name=n, description=f"Task {n}", expected_output="x", agent=agent, human_input=True)
               for n in ("one", "two")],
        process=crewgraph.Process.parallel,
        checkpoint=CheckpointConfig(path=tmp_path / "cp.db"),
        input_provider="persisted",
    )
    first = crew.kickoff()
    assert isinstance(first, PendingCrewRun) and sorted(q.task for q in first.questions) == ["one", "two"]
    with pytest.raises(CheckpointError, match=r"waits for 2 reviews .*pass a dict \{task: answer\}"):
        crew.resume(first.run_id, "ok")
    with pytest.raises(CheckpointError, match="no answer for task 'two'"):
        crew.resume(first.run_id, {"one": ""})
    out = crew.resume(first.run_id, {"one": "", "two": ""})
    assert not out.pending and sorted(t.raw for t in out.tasks_output) == ["draft of one", "draft of two"]


def test_a_guardrail_redo_of_a_reviewed_task_is_not_reviewed_again(tmp_path: Path) -> None:
    checked: list[str] = []

    def short(output: TaskOutput) -> tuple[bool, Any]:
        checked.append(output.raw)
        return (len(output.raw) < 10, output.raw if len(output.raw) < 10 else "keep it under 10 characters")

    llm = FakeLLM(["a rather long draft", "short"])
    agent = Agent(role="W", goal="g", llm=llm, max_retry_limit=0)
    crew = Crew(
        agents=[agent],
        tasks=[Task(name="d", description="D", expected_output="x", agent=agent, human_input=True, guardrail=short)],
        checkpoint=CheckpointConfig(path=tmp_path / "cp.db"),
        input_provider="persisted",
    )
    first = crew.kickoff()
    assert first.pending and checked == []  # reviewed before the guardrail, as in CrewAI
    out = crew.resume(first.run_id, "")
    assert not out.pending and out.raw == "short" and checked == ["a rather long draft", "short"]
    assert len(llm.calls) == 2


def test_from_checkpoint_true_picks_up_the_paused_run(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    llm = FakeLLM(["haiku", "Title"])
    first = _crew(llm, db).kickoff()
    again = _crew(llm, db).kickoff(from_checkpoint=True)  # the same run, still waiting: no second run
    assert isinstance(again, PendingCrewRun) and again.run_id == first.run_id and len(llm.calls) == 1
    assert _crew(llm, db).resume(first.run_id, "").raw == "Title"
