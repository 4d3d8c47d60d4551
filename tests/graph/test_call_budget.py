"""The model and tool calls the checkpoint store keeps for the UI have a budget (issue 25, item 6):
per node and per run, so a run of many large model calls cannot grow the store without end; and
whatever a bound drops is marked ``info["truncated"]`` on the saved record, never cut silently."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig, SQLiteCheckpointStore
from crewgraph.graph import call_records
from crewgraph.graph.call_records import (
    CALLS_KEY,
    TRUNCATED_KEY,
    restored_calls,
    run_budget,
    saved_calls,
)
from crewgraph.graph.run_record import RunRecord
from crewgraph.testing import FakeLLM


def _call(n: int, text: str = "x" * 1_000, messages: int = 2) -> RunRecord:
    return RunRecord(node_id=f"s.llm{n}", kind="llm", label=f"call {n}", status="completed", started_at=float(n),
                     detail={"messages": [{"role": "user", "content": text}] * messages, "response": "ok"})


def test_a_nodes_calls_beyond_the_bounds_say_what_they_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(call_records, "NODE_TEXT_BUDGET", 20_000)
    saved = saved_calls([_call(1, "m", messages=250), _call(2, "x" * 10_000), *(_call(n, "y") for n in range(3, 60))])
    first, second = saved[0], saved[1]
    assert len(first["detail"]["messages"]) == call_records.MAX_MESSAGES
    assert "first 50 of 250 messages were not kept" in first["info"][TRUNCATED_KEY]
    assert "detail" not in second and "NODE_TEXT_BUDGET" in second["info"][TRUNCATED_KEY]
    assert "detail" in saved[2] and TRUNCATED_KEY not in saved[2]["info"]  # small ones still fit
    assert all("MAX_CALLS" in s["info"][TRUNCATED_KEY] for s in saved[call_records.MAX_CALLS:])
    assert all("detail" in s or TRUNCATED_KEY in s["info"] for s in saved)  # nothing dropped unmarked
    back = restored_calls(saved)  # the reader (UI, plot --run) gets the mark in the record's info
    assert "NODE_TEXT_BUDGET" in back[1].info[TRUNCATED_KEY] and back[1].detail is None


def test_one_run_shares_one_budget_and_warns_once(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, "crewgraph.checkpoint"), run_budget(limit=6_000) as budget:
        one = saved_calls([_call(1), _call(2)])  # node one: ~2 x 2 kB
        two = saved_calls([_call(3), _call(4)])  # node two: the run's budget is spent on the way
    assert all("detail" in s for s in one)
    assert "detail" not in two[-1] and "RUN_TEXT_BUDGET" in two[-1]["info"][TRUNCATED_KEY]
    assert budget.used <= 6_000 and budget.refused >= 1
    warnings = [r for r in caplog.records if "reached their budget" in r.getMessage()]
    assert len(warnings) == 1
    outside = saved_calls([_call(5)])  # no run budget open: only the node's own bounds apply
    assert "detail" in outside[0]


def test_a_checkpointed_run_keeps_its_calls_within_the_run_budget(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(call_records, "RUN_TEXT_BUDGET", 4_000)
    a = Agent(role="Writer", goal="g", backstory="b " * 600, llm=FakeLLM(default="z" * 600))
    tasks = [Task(name=f"t{i}", description=f"write part {i}", expected_output="e", agent=a) for i in range(3)]
    db = tmp_path / "cp.db"
    out = Crew(agents=[a], tasks=tasks, checkpoint=CheckpointConfig(path=db)).kickoff()
    store = SQLiteCheckpointStore(db)
    calls = [c for n in store.nodes(out.run_id, calls=True) for c in n.info.get(CALLS_KEY) or []]
    assert len(calls) == 3
    assert "detail" in calls[0]
    marked = [c for c in calls if "detail" not in c]
    assert marked and all("RUN_TEXT_BUDGET" in c["info"][TRUNCATED_KEY] for c in marked)
    assert sum(len(str(c.get("detail", ""))) for c in calls) < 6_000
