"""``ListenedKinds``: the bus's answer to "does anyone listen to this kind?", as a value that
travels to a Ray worker (events/_listened.py), and ``handled_types`` kept in step with the bus."""

from __future__ import annotations

import pickle
from typing import Any

from crewgraph.events._listened import ListenedKinds
from crewgraph.events.base import BaseEvent
from crewgraph.events.bus import CrewGraphEventsBus
from crewgraph.events.crew_events import TaskCompletedEvent, TaskStartedEvent
from crewgraph.events.llm_events import LLMCallCompletedEvent, LLMCallStartedEvent


class _MyTaskStarted(TaskStartedEvent):
    """A subclass: a handler of its base takes it."""


def _handler(source: Any, event: Any) -> None:
    pass


def test_handled_types_follow_registration_and_removal() -> None:
    bus = CrewGraphEventsBus()
    assert bus.handled_types() == frozenset()
    bus.register_handler(TaskStartedEvent, _handler)
    first = bus.handled_types()
    assert first == {TaskStartedEvent} and bus.handled_types() is first  # cached until a change
    bus.off(TaskStartedEvent, _handler)
    assert bus.handled_types() == frozenset()  # a list left empty is no listener
    bus.register_handler(TaskCompletedEvent, _handler)
    with bus.scoped_handlers():
        assert bus.handled_types() == frozenset()
    assert bus.handled_types() == {TaskCompletedEvent}


def test_kinds_answer_as_the_bus_does_for_subclasses_and_after_a_pickle() -> None:
    bus = CrewGraphEventsBus()
    bus.register_handler(TaskStartedEvent, _handler)
    kinds = pickle.loads(pickle.dumps(ListenedKinds.of(bus.handled_types(), (LLMCallStartedEvent,))))
    for kind in (TaskStartedEvent, _MyTaskStarted, TaskCompletedEvent, LLMCallStartedEvent, LLMCallCompletedEvent):
        assert kinds.listens(kind) is bus.has_handlers(kind), kind
    assert kinds.wants(LLMCallStartedEvent) and not kinds.listens(LLMCallStartedEvent)  # the recorder's
    assert not kinds.wants(LLMCallCompletedEvent) and not kinds.wants(TaskCompletedEvent)


def test_a_handler_of_every_event_makes_every_kind_listened() -> None:
    kinds = ListenedKinds.of([BaseEvent])
    assert kinds.listens(TaskCompletedEvent) and kinds.wants(LLMCallCompletedEvent)
    assert not ListenedKinds.of([]).wants(TaskCompletedEvent)


def test_a_kind_is_named_by_module_and_qualified_name_so_a_copy_of_the_class_matches() -> None:
    """A class sent by value to a worker is another object there with the same name."""
    copy = type("TaskStartedEvent", (BaseEvent,), {"__module__": TaskStartedEvent.__module__})
    assert ListenedKinds.of([TaskStartedEvent]).listens(copy)
