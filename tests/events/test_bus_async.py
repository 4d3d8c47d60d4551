"""The event bus: emit's future, aemit, and Depends ordering."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from crewgraph.events import Depends
from crewgraph.events.bus import CrewGraphEventsBus
from crewgraph.events.flow_events import FlowStartedEvent


def _event() -> FlowStartedEvent:
    return FlowStartedEvent(flow_name="f")


def test_emit_returns_a_future_that_completes_after_async_handlers() -> None:
    bus = CrewGraphEventsBus()
    seen: list[str] = []
    release = threading.Event()

    @bus.on(FlowStartedEvent)
    async def slow(source: Any, event: Any) -> None:
        await asyncio.to_thread(release.wait, 5)
        seen.append("async")

    fut = bus.emit(None, _event())
    assert not fut.done()
    release.set()
    fut.result(timeout=5)
    assert seen == ["async"]


def test_emit_without_async_handlers_is_already_done() -> None:
    bus = CrewGraphEventsBus()
    bus.register_handler(FlowStartedEvent, lambda s, e: None)
    assert bus.emit(None, _event()).done()


def test_aemit_awaits_only_the_async_handlers_on_the_current_loop() -> None:
    """As CrewAI's ``aemit``: sync handlers are for ``emit``; ``aemit`` runs the async ones."""
    bus = CrewGraphEventsBus()
    seen: list[str] = []

    @bus.on(FlowStartedEvent)
    async def first(source: Any, event: Any) -> None:
        await asyncio.sleep(0.01)
        seen.append("async")

    @bus.on(FlowStartedEvent)
    def second(source: Any, event: Any) -> None:
        seen.append("sync")

    asyncio.run(bus.aemit(None, _event()))
    assert seen == ["async"]
    bus.emit(None, _event()).result(timeout=5)
    assert sorted(seen) == ["async", "async", "sync"]


def test_depends_orders_handlers_also_across_sync_and_async() -> None:
    bus = CrewGraphEventsBus()
    seen: list[str] = []

    def report(source: Any, event: Any) -> None:
        seen.append("report")

    async def setup(source: Any, event: Any) -> None:
        await asyncio.sleep(0.01)
        seen.append("setup")

    def record(source: Any, event: Any) -> None:
        seen.append("record")

    # registered in the "wrong" order: the dependencies decide
    bus.register_handler(FlowStartedEvent, report, depends_on=[Depends(record)])
    bus.register_handler(FlowStartedEvent, record, depends_on=Depends(setup))
    bus.register_handler(FlowStartedEvent, setup)
    bus.emit(None, _event()).result(timeout=5)
    assert seen == ["setup", "record", "report"]


def test_depends_cycles_and_bad_values_are_rejected() -> None:
    bus = CrewGraphEventsBus()

    def a(source: Any, event: Any) -> None: ...
    def b(source: Any, event: Any) -> None: ...

    bus.register_handler(FlowStartedEvent, a, depends_on=Depends(b))
    bus.register_handler(FlowStartedEvent, b)
    with pytest.raises(ValueError, match="cycle"):
        bus.register_handler(FlowStartedEvent, b, depends_on=Depends(a))
    with pytest.raises(TypeError, match="Depends"):
        bus.register_handler(FlowStartedEvent, a, depends_on=[a])  # type: ignore[list-item]
    bus.emit(None, _event()).result(timeout=1)  # the bus still works


def test_emit_stamps_crewais_sequence_previous_event_and_source_fingerprint() -> None:
    from crewgraph.security import Fingerprint

    bus = CrewGraphEventsBus()
    seen: list[Any] = []
    bus.on(FlowStartedEvent)(lambda source, event: seen.append(event))

    class Source:
        fingerprint = Fingerprint.generate(seed="flow-1", metadata={"team": "a"})

    first, second = _event(), _event()
    bus.emit(Source(), first).result(timeout=5)
    bus.emit(None, second).result(timeout=5)
    assert [e.event_id for e in seen] == [first.event_id, second.event_id] and first.event_id != second.event_id
    assert second.emission_sequence == first.emission_sequence + 1  # type: ignore[operator]
    assert second.previous_event_id == first.event_id
    assert first.source_fingerprint == Source.fingerprint.uuid_str
    assert first.fingerprint_metadata == {"team": "a"}
    assert second.source_fingerprint is None
