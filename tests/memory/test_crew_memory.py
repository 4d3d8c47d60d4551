"""Crew(memory=...) end to end: each task recalls what earlier tasks saved; agents may have their own."""

from __future__ import annotations

from pathlib import Path

import pytest

from crewgraph import Agent, Crew, Memory, Task
from crewgraph.memory.analysis import ExtractedMemories
from crewgraph.testing import FakeEmbedder, FakeLLM, FakeRequest


def memory_brain(facts: dict[str, str]) -> FakeLLM:
    """A memory model that extracts scripted facts and fails save analysis (safe defaults)."""

    def reply(req: FakeRequest) -> object:
        if req.response_model is ExtractedMemories:
            text = str(req.messages[-1]["content"])
            return ExtractedMemories(memories=[fact for key, fact in facts.items() if key in text])
        return RuntimeError("no analysis offline")

    return FakeLLM(default=reply)


def test_second_task_sees_what_the_first_one_learned(tmp_path: Path) -> None:
    mem_llm = memory_brain({"We will launch": "The launch date is March 3", "Post:": "The post was written"})
    memory = Memory(storage=str(tmp_path / "mem"), embedder=FakeEmbedder(), llm=mem_llm)
    llm = FakeLLM(responses=["We will launch on March 3.", "Post: launch on March 3!"])
    a = Agent(role="Planner", goal="plan", llm=llm)
    t1 = Task(name="plan", description="Decide the launch date", expected_output="a date", agent=a)
    t2 = Task(name="announce", description="Announce the launch date", expected_output="a post", agent=a,
              context=[])
    out = Crew(agents=[a], tasks=[t1, t2], memory=memory).kickoff()
    assert out.raw == "Post: launch on March 3!"
    second_prompt = llm.calls[1].prompt
    assert "Relevant memories:" in second_prompt and "The launch date is March 3" in second_prompt
    assert "We will launch on March 3." not in second_prompt  # context=[]: only memory carried it
    records = [r.content for r in memory.list_records()]
    assert set(records) == {"The launch date is March 3", "The post was written"}
    memory.close()


def test_agent_scope_and_crew_reset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(tmp_path))
    emb = FakeEmbedder()
    crew_llm = FakeLLM(responses=["done"])
    shared = Memory(embedder=emb, llm=memory_brain({"done": "private finding"}))
    researcher = Agent(role="Researcher", goal="g", llm=crew_llm, memory=shared.scope("/agent/researcher"))
    crew = Crew(agents=[researcher], tasks=[Task(description="dig", expected_output="x", agent=researcher)],
                memory=True, embedder=emb)
    crew.kickoff()
    assert [r.content for r in shared.list_records(scope="/agent/researcher")] == ["private finding"]
    shared.close()
    crew_memory = crew.get_memory()
    crew_memory.remember("crew fact", scope="/crew")
    crew.reset_memories(command_type="memory")
    assert crew_memory.list_records() == []
    crew_memory.close()
