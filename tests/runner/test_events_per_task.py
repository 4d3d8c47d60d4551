"""With no listener, the events a kickoff builds do not grow with its tasks.

A count, not a timing: every event is a pydantic model (~10 us to build and stamp), so a
kickoff with nobody listening builds only its run-level events (kickoff started and
completed), none per task or per node; with a listener for one kind, that kind is built
once per task.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.events.base import BaseEvent
from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.events.crew_events import TaskCompletedEvent
from crewgraph.testing import FakeLLM


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """How many events of each class were constructed (on an empty bus)."""
    counts: Counter[str] = Counter()
    original = BaseEvent.__init__

    def counting(self: Any, *args: Any, **kw: Any) -> None:
        counts[type(self).__name__] += 1
        original(self, *args, **kw)

    monkeypatch.setattr(BaseEvent, "__init__", counting)
    with crewgraph_event_bus.scoped_handlers():
        yield counts


def _kickoff(n: int) -> Any:
    agent = Agent(role="Writer", goal="write", backstory="b", llm=FakeLLM(default="done"))
    return Crew(agents=[agent], tasks=[Task(description=f"task {i}", expected_output="text", agent=agent)
                                       for i in range(n)]).kickoff()


def test_no_listener_no_event_per_task(built: Counter[str]) -> None:
    _kickoff(2)
    few = Counter(built)
    built.clear()
    out = _kickoff(6)
    assert len(out.tasks_output) == 6
    assert built == few, f"events built per task with no listener: {dict(built - few)}"
    assert set(built) <= {"CrewKickoffStartedEvent", "CrewKickoffCompletedEvent"}, dict(built)


def test_a_listener_gets_its_kind_once_per_task(built: Counter[str]) -> None:
    seen: list[str] = []
    crewgraph_event_bus.on(TaskCompletedEvent)(lambda _source, event: seen.append(event.task_name))
    _kickoff(3)
    assert built["TaskCompletedEvent"] == 3
    assert seen == ["task 0", "task 1", "task 2"]
