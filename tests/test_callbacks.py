"""step_callback, task_callback and Task.callback: off the scheduler's thread; one that raises
fails the run with an error naming it, and a resume runs it again (not the task)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.errors import CallbackError, NodeExecutionError
from crewgraph.testing import FakeLLM
from crewgraph.testing.fake_llm import FakeRequest

LOOP_THREADS: set[int] = set()


def _reply(text: str) -> Any:
    def reply(request: FakeRequest) -> str:
        LOOP_THREADS.add(threading.get_ident())  # FakeLLM.acall runs on the scheduler's loop
        return text

    return reply


def _crew(llm: FakeLLM, *, path: Path | None = None, **hooks: Any) -> Crew:
    step_cb = hooks.pop("step_callback", None)
    task_cb = hooks.pop("callback", None)
    agent = Agent(role="Writer", goal="Write", backstory="Writes.", llm=llm, step_callback=step_cb, max_retry_limit=2)
    tasks = [
        Task(name="draft", description="Draft it", expected_output="a draft", agent=agent, callback=task_cb),
        Task(name="polish", description="Polish it", expected_output="a text", agent=agent),
    ]
    checkpoint = CheckpointConfig(path=path) if path is not None else None
    return Crew(agents=[agent], tasks=tasks, checkpoint=checkpoint, **hooks)


def test_callbacks_run_off_the_scheduler_thread() -> None:
    LOOP_THREADS.clear()
    threads: dict[str, int] = {}

    def remember(kind: str) -> Any:
        return lambda _arg: threads.setdefault(kind, threading.get_ident())

    llm = FakeLLM([_reply("draft text"), _reply("final text")])
    out = _crew(
        llm, step_callback=remember("step"), callback=remember("task"), task_callback=remember("crew")
    ).kickoff()
    assert out.raw == "final text"
    assert set(threads) == {"step", "task", "crew"}
    assert LOOP_THREADS and not LOOP_THREADS & set(threads.values())


def test_a_raising_step_callback_names_the_callback_and_is_not_retried() -> None:
    def audit(step: Any) -> None:
        raise ValueError("audit log is full")

    llm = FakeLLM(["draft text", "again", "and again"])
    with pytest.raises(CallbackError) as info:
        _crew(llm, step_callback=audit).kickoff()
    message = str(info.value)
    assert "step_callback" in message and "audit" in message and "audit log is full" in message
    assert "task 'draft'" in message
    assert not isinstance(info.value, NodeExecutionError)
    assert isinstance(info.value.__cause__, ValueError)
    assert len(llm.calls) == 1  # the model call is not repeated for the callback's sake


def test_a_raising_task_callback_fails_the_run_and_a_resume_runs_only_it_again(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    notified: list[str] = []
    broken = {"on": True}

    def notify(output: Any) -> None:
        if broken["on"]:
            raise ConnectionError("webhook down")
        notified.append(output.raw)

    with pytest.raises(CallbackError) as info:
        _crew(FakeLLM(["draft text"]), path=db, callback=notify).kickoff()
    message = str(info.value)
    assert "Task.callback" in message and "notify" in message and "webhook down" in message
    assert "task 'draft'" in message and "resume" in message
    run_id = info.value.run_id  # type: ignore[attr-defined]

    broken["on"] = False
    llm = FakeLLM(["final text"])
    out = _crew(llm, path=db, callback=notify).kickoff(from_checkpoint=run_id)
    assert out.raw == "final text"
    assert len(llm.calls) == 1  # only "polish" ran; "draft" was restored
    assert notified == ["draft text"]  # the failed callback ran again, once

    again = _crew(FakeLLM([]), path=db, callback=notify).kickoff(from_checkpoint=run_id)
    assert again.raw == "final text" and notified == ["draft text"]  # done callbacks stay done
