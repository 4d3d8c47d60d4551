"""Crew-level resume and fork: finished nodes are restored, never re-run; changed crews are refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig, SQLiteCheckpointStore
from crewgraph.errors import CheckpointError, CrewGraphError
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import tool

TOOL_CALLS: list[str] = []


@tool("lookup")
def lookup(topic: str) -> str:
    """Look a topic up."""
    TOOL_CALLS.append(topic)
    return f"facts about {topic}"


def build_crew(llm: Any, path: Path, *, descriptions: tuple[str, ...] = ("Research {topic}", "Outline", "Write")) -> Crew:
    agent = Agent(role="Writer", goal="Write well", llm=llm, max_retry_limit=0, tools=[lookup])
    tasks = [
        Task(name=f"step{i + 1}", description=d, expected_output="text", agent=agent)
        for i, d in enumerate(descriptions)
    ]
    return Crew(name="resumable", agents=[agent], tasks=tasks, checkpoint=CheckpointConfig(path=path))


def _fail_at_step2(path: Path) -> str:
    llm = FakeLLM([FakeToolCall("lookup", {"topic": "AI"}), "research notes", RuntimeError("provider down")])
    with pytest.raises(CrewGraphError) as info:
        build_crew(llm, path).kickoff({"topic": "AI"})
    assert len(llm.calls) == 3
    return str(info.value.run_id)  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _reset_tool_calls() -> None:
    TOOL_CALLS.clear()


def test_resume_by_run_id_skips_finished_nodes(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    run_id = _fail_at_step2(db)
    assert TOOL_CALLS == ["AI"]
    llm = FakeLLM(["outline", "article"])
    out = build_crew(llm, db).kickoff(from_checkpoint=run_id)
    assert out.raw == "article"
    assert out.run_id == run_id
    assert [t.raw for t in out.tasks_output] == ["research notes", "outline", "article"]
    assert len(llm.calls) == 2  # step1's two LLM turns are not repeated
    assert TOOL_CALLS == ["AI"]  # nor its tool call
    first = llm.calls[0].prompt
    assert "Current Task: Outline" in first and "research notes" in first  # restored output is context
    statuses = {r.node_id: r.status for r in out.graph.records() if r.parent is None and r.kind == "agent_step"}
    assert statuses == {"t1_step1.agent": "restored", "t2_step2.agent": "completed", "t3_step3.agent": "completed"}
    with SQLiteCheckpointStore(db) as store:
        assert store.get_run(run_id).status == "completed"


def test_resume_without_inputs_reuses_the_runs_inputs(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    run_id = _fail_at_step2(db)
    out = build_crew(FakeLLM(["outline", "article"]), db).kickoff(from_checkpoint=run_id)
    assert out.tasks_output[0].description == "Research AI"


def test_resume_with_an_input_a_finished_task_used_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    run_id = _fail_at_step2(db)
    with pytest.raises(CheckpointError, match=r"task 't1_step1' finished in the checkpoint with other inputs \(topic='AI' -> 'cats'\)"):
        build_crew(FakeLLM([]), db).kickoff({"topic": "cats"}, from_checkpoint=run_id)


def test_resume_may_change_inputs_only_unfinished_tasks_use(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    descriptions = ("Research {topic}", "Outline", "Write in {style}")
    first = FakeLLM([FakeToolCall("lookup", {"topic": "AI"}), "notes", RuntimeError("down")])
    with pytest.raises(CrewGraphError) as info:
        build_crew(first, db, descriptions=descriptions).kickoff({"topic": "AI", "style": "prose"})
    llm = FakeLLM(["outline", "poem"])
    out = build_crew(llm, db, descriptions=descriptions).kickoff(
        {"style": "verse"}, from_checkpoint=info.value.run_id  # type: ignore[attr-defined]
    )
    assert out.raw == "poem" and "Write in verse" in llm.calls[1].prompt
    assert out.tasks_output[0].description == "Research AI"  # topic taken from the run


def test_from_checkpoint_true_resumes_latest_unfinished_else_starts_fresh(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    fresh = FakeLLM(["r", "o", "w"])
    first = build_crew(fresh, db).kickoff({"topic": "AI"}, from_checkpoint=True)  # nothing to resume
    assert len(fresh.calls) == 3 and first.raw == "w"
    run_id = _fail_at_step2(db)
    llm = FakeLLM(["outline", "article"])
    out = build_crew(llm, db).kickoff(from_checkpoint=True)
    assert out.run_id == run_id and len(llm.calls) == 2


def test_changed_plan_is_refused_naming_the_difference(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    run_id = _fail_at_step2(db)
    longer = build_crew(FakeLLM([]), db, descriptions=("Research {topic}", "Outline", "Write", "Edit"))
    with pytest.raises(CheckpointError, match=r"nodes not in the checkpointed run: t4_step4\.agent"):
        longer.kickoff(from_checkpoint=run_id)
    edited = build_crew(FakeLLM([]), db, descriptions=("Study {topic}", "Outline", "Write"))
    with pytest.raises(CheckpointError, match="task 't1_step1' finished in the checkpoint but its description changed"):
        edited.kickoff(from_checkpoint=run_id)


def test_changing_an_unfinished_task_is_allowed(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    run_id = _fail_at_step2(db)
    llm = FakeLLM(["outline", "article"])
    crew = build_crew(llm, db, descriptions=("Research {topic}", "Outline carefully", "Write"))
    assert crew.kickoff(from_checkpoint=run_id).raw == "article"
    assert "Outline carefully" in llm.calls[0].prompt


def test_unknown_run_id_lists_recent_runs(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    run_id = _fail_at_step2(db)
    with pytest.raises(CheckpointError, match=f"no run 'nope'.*{run_id}"):
        build_crew(FakeLLM([]), db).kickoff(from_checkpoint="nope")


def test_run_of_another_crew_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    run_id = _fail_at_step2(db)
    other = build_crew(FakeLLM([]), db)
    other.name = "other"
    with pytest.raises(CheckpointError, match="was made by 'resumable'"):
        other.kickoff(from_checkpoint=run_id)


def test_completed_run_resumes_to_the_same_output_without_calls(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    out = build_crew(FakeLLM(["r", "o", "w"]), db).kickoff({"topic": "AI"})
    llm = FakeLLM([])
    again = build_crew(llm, db).kickoff(from_checkpoint=out.run_id)
    assert again.raw == "w" and llm.calls == []


def test_checkpoint_config_run_id_on_the_crew_resumes(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    run_id = _fail_at_step2(db)
    crew = build_crew(FakeLLM(["outline", "article"]), db)
    crew.checkpoint = CheckpointConfig(path=db, run_id=run_id)
    assert crew.kickoff().run_id == run_id


def test_list_and_delete_checkpoints_from_the_crew(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    run_id = _fail_at_step2(db)
    crew = build_crew(FakeLLM([]), db)
    runs = crew.list_checkpoints()
    assert [r.run_id for r in runs] == [run_id]
    assert runs[0].status == "failed" and runs[0].nodes_completed == 1
    crew.delete_checkpoint(run_id)
    assert crew.list_checkpoints() == []


# -------------------------------------------------------------- Crew.from_checkpoint / Crew.fork
FACTORY_LLM: list[Any] = []


def factory_crew() -> Crew:
    """Used by reference ("test_resume_crew:factory_crew") in the tests below."""
    return build_crew(FACTORY_LLM[-1], FACTORY_DB[-1])


FACTORY_DB: list[Path] = []


def test_from_checkpoint_without_factory_explains_the_primary_api(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    run_id = _fail_at_step2(db)
    with pytest.raises(CheckpointError, match=r"crew\.kickoff\(from_checkpoint="):
        Crew.from_checkpoint(CheckpointConfig(path=db, run_id=run_id))


def test_from_checkpoint_with_factory_reference(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    run_id = _fail_at_step2(db)
    FACTORY_DB.append(db)
    FACTORY_LLM.append(FakeLLM(["outline", "article"]))
    crew = Crew.from_checkpoint(CheckpointConfig(path=db, run_id=run_id), factory="test_resume_crew:factory_crew")
    out = crew.kickoff()
    assert out.raw == "article" and out.run_id == run_id
    assert len(FACTORY_LLM[-1].calls) == 2
    # The reference is remembered in the run, so the next from_checkpoint needs no factory.
    with SQLiteCheckpointStore(db) as store:
        assert store.load_meta(run_id)["crew_factory"] == "test_resume_crew:factory_crew"
    FACTORY_LLM.append(FakeLLM([]))
    again = Crew.from_checkpoint(CheckpointConfig(path=db, run_id=run_id))
    assert again.kickoff().raw == "article"


def test_fork_leaves_the_parent_untouched(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    run_id = _fail_at_step2(db)
    llm = FakeLLM(["other outline", "other article"])
    forked = Crew.fork(CheckpointConfig(path=db, run_id=run_id), branch="try-2", factory=lambda: build_crew(llm, db))
    out = forked.kickoff()
    assert out.run_id != run_id and out.raw == "other article" and len(llm.calls) == 2
    with SQLiteCheckpointStore(db) as store:
        parent, child = store.get_run(run_id), store.get_run(str(out.run_id))
    assert parent.status == "failed" and parent.nodes_completed == 1
    assert child.parent_run_id == run_id and child.branch == "try-2" and child.status == "completed"


def test_from_checkpoint_config_with_branch_forks_first(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    run_id = _fail_at_step2(db)
    out = build_crew(FakeLLM(["o", "a"]), db).kickoff(
        from_checkpoint=CheckpointConfig(path=db, run_id=run_id, branch="b")
    )
    assert out.run_id != run_id
    with SQLiteCheckpointStore(db) as store:
        assert store.get_run(str(out.run_id)).branch == "b"
        assert store.get_run(run_id).status == "failed"


def test_from_checkpoint_with_a_crewbase_like_class(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    run_id = _fail_at_step2(db)
    llm = FakeLLM(["outline", "article"])

    class ProjectCrew:
        """Like a @CrewBase class: instances build the crew with ``crew()``."""

        def crew(self) -> Crew:
            return build_crew(llm, db)

    out = Crew.from_checkpoint(CheckpointConfig(path=db, run_id=run_id), factory=ProjectCrew).kickoff()
    assert out.raw == "article" and len(llm.calls) == 2
