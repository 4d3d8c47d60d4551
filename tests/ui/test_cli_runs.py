"""A run started by ``crewgraph run`` (another process, no UI server) shows in the UI what a run
the UI started shows: each node's model calls (prompt, answer), its tool calls (arguments,
result), and a failed step drawn failed (red), not pending. All of it comes from the checkpoint
store, which keeps each node's calls (``crewgraph.graph.call_records``)."""

from __future__ import annotations

import os
import re
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _forkserver import run_python

from crewgraph.export.styles import STATUS_COLOURS

SOURCE = '''
from crewgraph import Agent, Crew, Task
from crewgraph.errors import LLMError
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import tool


@tool("lookup")
def lookup(query: str) -> str:
    """Look something up."""
    return f"found {query}"


def build():
    llm = FakeLLM([FakeToolCall("lookup", {"query": "cats"}), "cats purr"], model="fake-model")
    a = Agent(role="{topic} researcher", goal="learn", backstory="curious", llm=llm, tools=[lookup])
    down = Agent(role="{topic} writer", goal="write", backstory="terse", max_retry_limit=0,
                 llm=FakeLLM(default=LLMError("model down"), model="fake-down"))
    return Crew(name="clicrew", agents=[a, down], tasks=[
        Task(name="research", description="research {topic}", expected_output="facts", agent=a),
        Task(name="write", description="write about {topic}", expected_output="text", agent=down),
    ])
'''

STEP, WRITE = "t1_research.agent", "t2_write.agent"


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """One ``crewgraph run`` in a subprocess: the first task calls a tool, the second fails."""
    root = tmp_path_factory.mktemp("cli-run")
    (root / "clicrew.py").write_text(textwrap.dedent(SOURCE), encoding="utf-8")
    env = {**os.environ, "CREWGRAPH_STORAGE_DIR": str(root / "store"), "PYTHONPATH": os.pathsep.join(
        [str(Path(__file__).resolve().parents[2]), os.environ.get("PYTHONPATH", "")])}
    env.pop("CREWGRAPH_LLM", None)
    done = run_python(["-m", "crewgraph.cli", "run", "clicrew:build", "--inputs", "topic=cats"],
                      cwd=root, env=env, timeout=120)
    assert done.returncode != 0, done.stdout
    said = done.stdout + done.stderr
    # the error line names the agent and task as the run filled them in
    assert "Agent 'cats writer' on task 'write': model down" in said, said
    assert "{topic}" not in said, said
    found = re.search(r"run ([0-9a-f]{32})", done.stdout + done.stderr)
    assert found, done.stdout + done.stderr
    yield root, found.group(1)


@pytest.fixture(params=["registered", "unregistered"])
def ui(request: pytest.FixtureRequest, cli_run: tuple[Path, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The app over the run's store: with the crew registered (its plan is redrawn), and
    without (only what the store keeps)."""
    from starlette.testclient import TestClient

    from crewgraph.ui import UISettings, create_app

    root, _ = cli_run
    monkeypatch.chdir(root)
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(root / "store"))
    targets = ["clicrew:build"] if request.param == "registered" else []
    with TestClient(create_app(UISettings(cwd=root, targets=targets)), base_url="http://127.0.0.1") as c:
        yield c
    sys.modules.pop("clicrew", None)


def test_the_runs_model_and_tool_calls_are_shown(ui: Any, cli_run: tuple[Path, str]) -> None:
    _, run_id = cli_run
    run = ui.get(f"/runs/{run_id}").json()
    assert run["status"] == "failed"
    by_id = {n["id"]: n for n in run["nodes"]}
    assert {f"{STEP}.llm1", f"{STEP}.llm2", f"{STEP}.it1.0.lookup", f"{WRITE}.llm1"} <= set(by_id)
    assert by_id[f"{STEP}.llm1"]["parent"] == STEP

    step = ui.get(f"/runs/{run_id}/nodes/{STEP}").json()
    assert step["recorded_by_this_server"] is False and step["calls_recorded"] is True
    prompt = "\n".join(str(m["content"]) for m in step["prompt"])
    assert "research cats" in prompt and "cats researcher" in prompt  # what the model was sent
    assert [c["model"] for c in step["llm_calls"]] == ["fake-model", "fake-model"]
    assert step["llm_calls"][0]["tool_calls"] == ["lookup"] and step["llm_calls"][1]["response"] == "cats purr"
    assert all(c["tokens"] for c in step["llm_calls"])

    call = ui.get(f"/runs/{run_id}/nodes/{STEP}.it1.0.lookup").json()
    assert call["tool"] == "lookup" and call["tool_args"] == {"query": "cats"} and call["output"] == "found cats"
    turn = ui.get(f"/runs/{run_id}/nodes/{STEP}.llm2").json()
    assert turn["output"] == "cats purr" and "found cats" in str(turn["prompt"])  # the tool result went back


def test_the_failed_step_is_failed_and_red(ui: Any, cli_run: tuple[Path, str]) -> None:
    _, run_id = cli_run
    node = ui.get(f"/runs/{run_id}/nodes/{WRITE}").json()
    assert node["status"] == "failed" and "model down" in node["error"]
    assert "write about cats" in str(node["prompt"])  # what it was asked before it failed
    assert "model down" in node["llm_calls"][0]["error"]
    svg = ui.get(f"/runs/{run_id}/graph.svg").text
    drawn = re.search(r"<title>" + re.escape(WRITE) + r"</title>.*?<(?:polygon|path|ellipse) fill=\"([^\"]+)\"", svg,
                      re.S)
    assert drawn is not None, svg[:2000]
    assert drawn.group(1).lower() == STATUS_COLOURS["failed"]
    # the task boxes and labels read as the run filled them in
    assert "Agent: cats researcher" in svg and "Agent: cats writer" in svg and "{topic}" not in svg


def test_the_store_lists_runs_without_the_prompts(cli_run: tuple[Path, str]) -> None:
    from crewgraph.checkpoint import SQLiteCheckpointStore

    root, run_id = cli_run
    with SQLiteCheckpointStore(root / "store" / "checkpoints.db") as store:
        listed = {n.node_id: n for n in store.nodes(run_id)}
        full = {n.node_id: n for n in store.nodes(run_id, calls=True)}
        assert "calls" not in listed[STEP].info and len(full[STEP].info["calls"]) == 3
        assert listed[WRITE].info["status"] == "failed" and not listed[WRITE].restorable
        assert store.completed(run_id).keys() == {STEP}  # a resume runs the failed step again
