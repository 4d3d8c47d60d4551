"""Resume never repeats a memory save; hierarchical tasks recall and save memory like sequential ones."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, Crew, CrewGraphError, Process, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.testing import FakeLLM


class StubMemory:
    """Just enough of Memory for the recall/save nodes: records what was remembered."""

    read_only = False

    def __init__(self) -> None:
        self.saved: list[str] = []
        self.queries: list[str] = []

    def recall(self, query: str, limit: int = 5, depth: str = "shallow") -> list[Any]:
        self.queries.append(query)
        return []

    def extract_memories(self, text: str) -> list[str]:
        return [f"fact from {text}"]

    def remember_many(self, facts: list[str], **kwargs: Any) -> None:
        self.saved.extend(facts)

    def drain_writes(self) -> None:
        return None


def _crew(llm: Any, memory: StubMemory, db: Path, **kw: Any) -> Crew:
    agent = Agent(role="Writer", goal="g", llm=llm, max_retry_limit=0)
    tasks = [
        Task(name="one", description="First", expected_output="x", agent=agent),
        Task(name="two", description="Second", expected_output="x", agent=agent),
    ]
    return Crew(agents=[agent], tasks=tasks, memory=memory, checkpoint=CheckpointConfig(path=db), **kw)


def test_resume_does_not_repeat_memory_saves(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    memory = StubMemory()
    with pytest.raises(CrewGraphError) as info:
        _crew(FakeLLM(["a", RuntimeError("down")]), memory, db).kickoff()
    assert memory.saved == ["fact from a"]
    out = _crew(FakeLLM(["b"]), memory, db).kickoff(from_checkpoint=info.value.run_id)  # type: ignore[attr-defined]
    assert out.raw == "b"
    assert memory.saved == ["fact from a", "fact from b"]  # task one's save is not repeated
    assert memory.queries == ["First", "Second"]  # task two's recall had finished too: restored


def test_hierarchical_tasks_recall_and_save_memory(tmp_path: Path) -> None:
    memory = StubMemory()
    crew = Crew(
        agents=[Agent(role="Helper", goal="g", llm=FakeLLM([]))],
        tasks=[Task(name="only", description="Answer", expected_output="x")],
        process=Process.hierarchical,
        manager_llm=FakeLLM(["the answer"]),
        memory=memory,
    )
    graph = crew.compile()
    assert graph.execution_successors("t1_only.recall") == ["t1_only.manager"]
    assert graph.execution_successors("t1_only.manager") == ["t1_only.save"]
    assert crew.kickoff().raw == "the answer"
    assert memory.queries == ["Answer"] and memory.saved == ["fact from the answer"]
