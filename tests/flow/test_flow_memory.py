"""self.remember / self.recall / self.extract_memories use the flow's memory, built lazily."""

from __future__ import annotations

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

    def factory() -> Any:
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

