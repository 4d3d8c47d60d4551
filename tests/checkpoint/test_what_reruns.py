"""docs/checkpoints.md, "What re-runs after a crash": one test per statement, and the doc's
list of statements is the list of tests (so neither can change without the other).

Crashes are real where it matters: the script part of this module runs a crew in a child
process that dies (``os._exit``) inside a guardrail or a task callback.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.errors import CrewGraphError
from crewgraph.events import NodeFinishedEvent, TaskCompletedEvent
from crewgraph.events.event_bus import crewgraph_event_bus
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import tool

DOC = Path(__file__).resolve().parents[2] / "docs" / "checkpoints.md"
LOG: list[str] = []  # what ran: "tool:<topic>", "step", "guard", "callback:<task>", "before"


@tool("lookup")
def lookup(topic: str) -> str:
    """Look a topic up."""
    LOG.append(f"tool:{topic}")
    return f"facts about {topic}"


def _die_if(var: str) -> None:
    if os.environ.get(var) == "1":
        os._exit(17)  # the process dies here, mid-run


def _guard(output: Any) -> tuple[bool, Any]:
    LOG.append("guard")
    _die_if("DIE_IN_GUARDRAIL")
    return True, output.raw


def _callback(output: Any) -> None:
    LOG.append(f"callback:{output.name}")
    _die_if("DIE_IN_CALLBACK")


def build(llm: Any, db: Path, *, output_file: Path | None = None) -> Crew:
    agent = Agent(role="Writer", goal="Write", backstory="Writes.", llm=llm, tools=[lookup],
                  max_retry_limit=0, step_callback=lambda step: LOG.append("step"))
    research = Task(name="research", description="Research {topic}", expected_output="notes", agent=agent,
                    callback=_callback, guardrail=_guard,
                    output_file=str(output_file) if output_file else None)
    write = Task(name="write", description="Write it up", expected_output="a text", agent=agent)
    crew = Crew(name="reruns", agents=[agent], tasks=[research, write], checkpoint=CheckpointConfig(path=db))
    crew.before_kickoff_callbacks.append(lambda inputs: LOG.append("before"))
    return crew


FIRST = [FakeToolCall("lookup", {"topic": "AI"}), "research notes"]


def _crash_in_child(db: Path, var: str) -> str:
    """Run the crew in a child process that dies at ``var``; the run id it was running."""
    env = {**os.environ, var: "1"}
    child = subprocess.run([sys.executable, __file__, str(db)], env=env, capture_output=True, text=True, timeout=120)
    assert child.returncode == 17, child.stderr
    return _latest(db)


def _latest(db: Path) -> str:
    from crewgraph.checkpoint import SQLiteCheckpointStore

    with SQLiteCheckpointStore(db) as store:
        info = store.latest_run(name="reruns")
        assert info is not None
        return info.run_id


def _fail_in_write(db: Path) -> str:
    with pytest.raises(CrewGraphError) as info:
        build(FakeLLM([*FIRST, RuntimeError("provider down")]), db).kickoff({"topic": "AI"})
    return str(info.value.run_id)  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _clear_log() -> None:
    LOG.clear()


def test_saved_nodes_are_restored(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    run_id = _fail_in_write(db)
    assert LOG == ["before", "step", "tool:AI", "step", "guard", "callback:research"]
    LOG.clear()
    events: list[tuple[str, Any]] = []
    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.on(TaskCompletedEvent)(lambda s, e: events.append(("completed", e.task_name)))
        crewgraph_event_bus.on(NodeFinishedEvent)(
            lambda s, e: events.append(("restored", e.node_id)) if e.from_checkpoint else None
        )
        llm = FakeLLM(["the text"])
        out = build(llm, db).kickoff(from_checkpoint=run_id)
    assert out.raw == "the text"
    assert len(llm.calls) == 1 and "Write it up" in llm.calls[0].prompt  # research: no model call
    assert LOG == ["before", "step"]  # no tool call, guardrail, callback or step callback of research
    assert ("completed", "research") not in events and ("completed", "write") in events
    restored = {nid for kind, nid in events if kind == "restored"}
    assert {"t1_research.agent", "t1_research.guardrail1"} <= restored


def test_unsaved_nodes_run_from_their_start(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    # The research step calls its tool, then its next model call fails: the step is not saved.
    with pytest.raises(CrewGraphError) as info:
        build(FakeLLM([FakeToolCall("lookup", {"topic": "AI"}), RuntimeError("provider down")]), db).kickoff(
            {"topic": "AI"}
        )
    run_id = info.value.run_id  # type: ignore[attr-defined]
    first_prompt = "Research AI"
    LOG.clear()
    llm = FakeLLM([*FIRST, "the text"])
    build(llm, db).kickoff(from_checkpoint=run_id)
    assert first_prompt in llm.calls[0].prompt and not any(m["role"] == "tool" for m in llm.calls[0].messages)
    assert LOG.count("tool:AI") == 1  # the tool call it had made is made again

    # A guardrail that was running when the process died runs again; its agent step does not.
    db2 = tmp_path / "cp2.db"
    run_id = _crash_in_child(db2, "DIE_IN_GUARDRAIL")
    LOG.clear()
    llm = FakeLLM(["the text"])
    out = build(llm, db2).kickoff(from_checkpoint=run_id)
    assert out.tasks_output[0].raw == "research notes"
    assert len(llm.calls) == 1  # only "write" called the model
    assert LOG == ["before", "guard", "callback:research", "step"]


def test_task_callbacks_run_until_they_have_completed_once(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    run_id = _crash_in_child(db, "DIE_IN_CALLBACK")  # dies inside research's callback
    LOG.clear()
    build(FakeLLM(["the text"]), db).kickoff(from_checkpoint=run_id)
    assert LOG == ["before", "callback:research", "step"]  # the callback runs again, not the task
    LOG.clear()
    build(FakeLLM([]), db).kickoff(from_checkpoint=run_id)  # the run is complete now
    assert LOG == ["before"]  # a callback that completed never runs again


def test_output_files_are_rewritten_only_if_missing(tmp_path: Path) -> None:
    db, notes = tmp_path / "cp.db", tmp_path / "notes.md"
    with pytest.raises(CrewGraphError) as info:
        build(FakeLLM([*FIRST, RuntimeError("down")]), db, output_file=notes).kickoff({"topic": "AI"})
    run_id = info.value.run_id  # type: ignore[attr-defined]
    assert notes.read_text() == "research notes"
    notes.write_text("edited by hand")
    build(FakeLLM(["the text", "the text"]), db, output_file=notes).kickoff(from_checkpoint=run_id)
    assert notes.read_text() == "edited by hand"
    notes.unlink()
    build(FakeLLM([]), db, output_file=notes).kickoff(from_checkpoint=run_id)
    assert notes.read_text() == "research notes"


def test_token_usage_counts_the_whole_run(tmp_path: Path) -> None:
    whole = build(FakeLLM([*FIRST, "the text"]), tmp_path / "a.db").kickoff({"topic": "AI"})
    db = tmp_path / "b.db"
    run_id = _fail_in_write(db)
    resumed = build(FakeLLM(["the text"]), db).kickoff(from_checkpoint=run_id)
    assert resumed.token_usage.total_tokens == whole.token_usage.total_tokens > 0


def test_kickoff_hooks_run_again(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    run_id = _fail_in_write(db)
    crew = build(FakeLLM(["the text"]), db)
    crew.after_kickoff_callbacks.append(lambda out: LOG.append("after") or out)
    crew.kickoff(from_checkpoint=run_id)
    assert LOG.count("before") == 2 and LOG.count("after") == 1


TESTS = {
    "Saved nodes are restored.": test_saved_nodes_are_restored,
    "Unsaved nodes run from their start.": test_unsaved_nodes_run_from_their_start,
    "Task callbacks run until they have completed once.": test_task_callbacks_run_until_they_have_completed_once,
    "Output files are rewritten only if missing.": test_output_files_are_rewritten_only_if_missing,
    "Token usage counts the whole run.": test_token_usage_counts_the_whole_run,
    "Kickoff hooks run again.": test_kickoff_hooks_run_again,
}


def test_the_doc_states_exactly_what_these_tests_check() -> None:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### What re-runs after a crash", 1)[1].split("\n### ", 1)[0]
    statements = re.findall(r"^- \*\*(.+?)\*\*", section, flags=re.M)
    assert statements == list(TESTS), "docs/checkpoints.md and this module disagree"


FLOW_MODULE = '''
import os
from pathlib import Path

from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.flow import Flow, listen, start
from crewgraph.flow.persistence import SQLiteFlowPersistence, persist
from crewgraph.testing import FakeLLM

ROOT = Path(__file__).parent
LLM = FakeLLM(["draft text", "final text"])
BEGUN = []


def _die_after_draft(output):
    if os.environ.get("DIE_IN_CALLBACK") == "1" and output.name == "draft":
        os._exit(17)


@persist(SQLiteFlowPersistence(str(ROOT / "flows.db")))
class Pipeline(Flow[dict]):
    @start()
    def begin(self):
        BEGUN.append(self.state["id"])
        print(self.state["id"], flush=True)
        return "go"

    @listen(begin)
    def write(self, _):
        agent = Agent(role="Writer", goal="Write", backstory="Writes.", llm=LLM)
        tasks = [
            Task(name="draft", description="Draft", expected_output="x", agent=agent, callback=_die_after_draft),
            Task(name="polish", description="Polish", expected_output="x", agent=agent),
        ]
        crew = Crew(name="inner", agents=[agent], tasks=tasks, checkpoint=CheckpointConfig(path=ROOT / "crews.db"))
        return crew.kickoff(from_checkpoint=True).raw


if __name__ == "__main__":
    Pipeline().kickoff()
'''


def test_a_crew_in_a_flow_method_that_runs_again_resumes_its_own_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/flows.md: the method runs again from its start; the checkpointed crew it kicks off
    with from_checkpoint=True resumes its unfinished run instead of starting over."""
    import importlib

    (tmp_path / "crashflow.py").write_text(FLOW_MODULE, encoding="utf-8")
    env = {**os.environ, "DIE_IN_CALLBACK": "1"}
    child = subprocess.run([sys.executable, str(tmp_path / "crashflow.py")], env=env, capture_output=True,
                           text=True, timeout=120)
    assert child.returncode == 17, child.stderr
    state_id = child.stdout.split()[0]
    monkeypatch.syspath_prepend(str(tmp_path))
    crashflow = importlib.import_module("crashflow")
    crashflow.LLM = FakeLLM(["final text"])  # the method reads the module's LLM when it runs
    assert crashflow.Pipeline().kickoff(inputs={"id": state_id}) == "final text"
    assert crashflow.BEGUN == []  # the completed start method did not run again
    assert len(crashflow.LLM.calls) == 1 and "Polish" in crashflow.LLM.calls[0].prompt  # draft restored
    sys.modules.pop("crashflow", None)
    flows_doc = (DOC.parent / "flows.md").read_text(encoding="utf-8")
    assert "resumes its own unfinished run" in flows_doc


if __name__ == "__main__":  # the child process of _crash_in_child
    build(FakeLLM(list(FIRST)), Path(sys.argv[1])).kickoff({"topic": "AI"})
