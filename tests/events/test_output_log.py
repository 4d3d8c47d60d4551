"""``Crew(output_log_file=...)``: each task's start and end logged, as text or a JSON array."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.testing import FakeLLM


def crew(llm: Any, log: Any) -> Crew:
    a = Agent(role="Writer", goal="Write", llm=llm)
    tasks = [Task(name="draft", description="Draft a post", expected_output="A draft", agent=a),
             Task(name="polish", description="Polish it", expected_output="A post", agent=a)]
    return Crew(agents=[a], tasks=tasks, output_log_file=log)


def test_json_log_is_an_array_kept_across_kickoffs(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "run.json"
    crew(FakeLLM(["d1", "p1"]), str(log)).kickoff()
    crew(FakeLLM(["d2", "p2"]), str(log)).kickoff()
    entries = json.loads(log.read_text(encoding="utf-8"))
    assert [(e["task_name"], e["status"]) for e in entries] == [
        ("draft", "started"), ("draft", "completed"), ("polish", "started"), ("polish", "completed")
    ] * 2
    assert entries[1]["output"] == "d1" and entries[1]["task"] == "Draft a post" and entries[1]["agent"] == "Writer"
    assert entries[7]["output"] == "p2"


def test_true_writes_logs_txt_as_text_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    crew(FakeLLM(["d", "p"]), True).kickoff()
    lines = (tmp_path / "logs.txt").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 4
    assert 'task_name="draft"' in lines[0] and 'status="started"' in lines[0]
    assert 'status="completed"' in lines[3] and 'output="p"' in lines[3]


def test_a_failed_task_is_logged(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    a = Agent(role="Writer", goal="Write", llm=FakeLLM([ValueError("model broke")] * 3), max_retry_limit=0)
    c = Crew(agents=[a], tasks=[Task(name="draft", description="Draft", expected_output="x", agent=a)],
             output_log_file=str(log))
    with pytest.raises(Exception, match="model broke"):
        c.kickoff()
    text = log.read_text(encoding="utf-8")
    assert 'status="failed"' in text and "model broke" in text


def test_no_log_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    crew(FakeLLM(["d", "p"]), None).kickoff()
    assert list(tmp_path.iterdir()) == []
