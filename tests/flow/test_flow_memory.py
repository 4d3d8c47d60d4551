"""self.remember / self.recall / self.extract_memories use the flow's memory, built lazily."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from crewgraph.flow import Flow, listen, start


def test_flow_memory_attribute_is_used(fake_memory: Any) -> None:
    class Notes(Flow):
        memory = fake_memory

        @start()
        def take(self) -> list[str]:
            facts = self.extract_memories("Rate limit is 1000. Port is 8080.")
            for fact in facts:
                self.remember(fact, scope="/ops")
            return facts

        @listen(take)
        def look(self) -> list[str]:
            return [m.record.content for m in self.recall("ops facts", limit=5)]

    assert Notes().kickoff() == ["Rate limit is 1000.", "Port is 8080."]
    assert fake_memory.saved == [("Rate limit is 1000.", {"scope": "/ops"}), ("Port is 8080.", {"scope": "/ops"})]


def test_memory_passed_to_the_constructor(fake_memory: Any) -> None:
    class F(Flow):
        @start()
        def a(self) -> None:
            self.remember_many(["x", "y"])

    F(memory=fake_memory).kickoff()
    assert [c for c, _ in fake_memory.saved] == ["x", "y"]


def test_default_memory_is_built_once_on_first_use(monkeypatch: pytest.MonkeyPatch, fake_memory: Any) -> None:
    import crewgraph.flow._memory as flow_memory

    built: list[int] = []

    def factory(flow_name: str) -> Any:
        built.append(1)
        return fake_memory

    monkeypatch.setattr(flow_memory, "_default_memory", factory)

    class F(Flow):
        @start()
        def a(self) -> None:
            self.remember("one")

        @listen(a)
        def b(self) -> None:
            self.remember("two")

    class Quiet(Flow):
        @start()
        def a(self) -> int:
            return 1

    Quiet().kickoff()
    assert built == []  # a flow that never remembers builds no memory
    F().kickoff()
    assert built == [1] and [c for c, _ in fake_memory.saved] == ["one", "two"]



def test_memory_events_of_a_kickoff_carry_its_run_id(captured: Any, tmp_path: Path) -> None:
    from crewgraph.events.memory_events import MemoryQueryCompletedEvent, MemorySaveCompletedEvent
    from crewgraph.memory import Memory
    from crewgraph.testing import FakeEmbedder

    memory = Memory(storage=str(tmp_path / "mem"), embedder=FakeEmbedder(16), llm=None)

    class Remembering(Flow):
        @start()
        def save(self) -> None:
            self.remember("blocking save", scope="/f", categories=[], importance=0.5)
            self.remember_many(["background save"], scope="/f", categories=[], importance=0.5)

        @listen(save)
        def look(self) -> int:
            return len(self.recall("save", depth="shallow"))

    flow = Remembering(memory=memory)
    try:
        assert flow.kickoff() == 2
        outside = memory.recall("save", depth="shallow")  # not in a kickoff: no run id
    finally:
        memory.close()
    saves = captured.of(MemorySaveCompletedEvent)
    queries = captured.of(MemoryQueryCompletedEvent)
    assert len(saves) == 2 and len(queries) == 2 and len(outside) == 2
    # Saves complete on the memory's own thread, yet keep the run of the method that queued them.
    assert {e.run_id for e in saves + queries[:1]} == {flow.run_id}
    assert queries[1].run_id is None
