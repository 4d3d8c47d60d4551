"""Fixtures for the flow tests: captured events, a scripted memory, a private storage dir."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crewgraph.events.base import BaseEvent
from crewgraph.events.bus import crewgraph_event_bus


class Captured:
    """Every event published while the fixture is active, in order (thread-safe)."""

    def __init__(self) -> None:
        self.events: list[BaseEvent] = []
        self.sources: list[Any] = []
        self._lock = threading.Lock()

    def __call__(self, source: Any, event: BaseEvent) -> None:
        with self._lock:
            self.events.append(event)
            self.sources.append(source)

    def of(self, kind: type[BaseEvent]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    def types(self) -> list[str]:
        return [e.event_type for e in self.events]


@pytest.fixture
def captured() -> Iterator[Captured]:
    cap = Captured()
    with crewgraph_event_bus.scoped_handlers():
        crewgraph_event_bus.register_handler(BaseEvent, cap)
        yield cap


class FakeMatch:
    def __init__(self, content: str) -> None:
        self.record = type("Record", (), {"content": content})()
        self.score = 1.0


class FakeMemory:
    """Just enough of Memory for flows: remember/recall/extract_memories, recorded."""

    def __init__(self) -> None:
        self.saved: list[tuple[str, dict[str, Any]]] = []
        self.queries: list[str] = []
        self.drained = 0

    def remember(self, content: str, **kwargs: Any) -> str:
        self.saved.append((content, kwargs))
        return f"mem{len(self.saved)}"

    def remember_many(self, contents: list[str], **kwargs: Any) -> None:
        for c in contents:
            self.remember(c, **kwargs)

    def recall(self, query: str, **kwargs: Any) -> list[FakeMatch]:
        self.queries.append(query)
        return [FakeMatch(c) for c, _ in self.saved]

    def extract_memories(self, content: str) -> list[str]:
        return [s.strip() + "." for s in content.split(".") if s.strip()]

    def drain_writes(self) -> None:
        self.drained += 1


@pytest.fixture
def fake_memory() -> FakeMemory:
    return FakeMemory()


@pytest.fixture
def storage_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """CREWGRAPH_STORAGE_DIR pointed at a fresh folder; the cwd moved there too."""
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(tmp_path / "store"))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "store"
