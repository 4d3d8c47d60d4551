"""``ctx.emit`` of one node: events reach the bus (and the run graph's LLM tracer) through it.

Kept apart from the scheduler so a node's view of events is one small object: it stamps and
publishes, and ``wants(type)`` lets the node skip building an event nobody would receive.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crewgraph.events._listened import ListenedKinds
from crewgraph.events.base import BaseEvent
from crewgraph.graph.node import Node

if TYPE_CHECKING:
    from crewgraph.runtime.scheduler import Scheduler

__all__ = ["NodeEmitter"]


class NodeEmitter:
    """``ctx.emit`` of one node: stamps and publishes; ``wants(type)`` lets the node skip
    building events no handler would receive (events cost ~10 us each to build)."""

    __slots__ = ("_node", "_scheduler")

    def __init__(self, scheduler: Scheduler, node: Node) -> None:
        self._scheduler = scheduler
        self._node = node

    def __call__(self, event: BaseEvent) -> None:
        self._scheduler.emit(event, self._node)

    def wants(self, event_type: type[BaseEvent]) -> bool:
        """Whether an event of this type reaches anyone: a bus handler or the run graph's tracer."""
        scheduler = self._scheduler
        if scheduler.bus.has_handlers(event_type):
            return True
        tracer = scheduler.llm_tracer
        return tracer is not None and bool(tracer.traces(event_type))

    def listens(self, event_type: type[BaseEvent]) -> bool:
        """Whether a bus handler takes events of this type (the tracer aside)."""
        return self._scheduler.bus.has_handlers(event_type)

    def listened(self) -> ListenedKinds | None:
        """Who listens, as a value a step run in another process can ask (None: this bus
        cannot tell, so such a step builds every event)."""
        scheduler = self._scheduler
        handled_types = getattr(scheduler.bus, "handled_types", None)
        if handled_types is None:
            return None
        handled, traced = handled_types(), scheduler.llm_tracer is not None
        known = scheduler.listened
        if known is not None and known[0] is handled and known[1] == traced:
            return known[2]
        from crewgraph.runtime.llm_trace import TRACED_EVENTS

        kinds = ListenedKinds.of(handled, TRACED_EVENTS if traced else ())
        scheduler.listened = (handled, traced, kinds)
        return kinds

    @property
    def llm_tracer(self) -> Any:
        """The run graph's LLM call recorder, or None: ``call_llm`` records there directly
        when no bus handler wants the event."""
        return self._scheduler.llm_tracer


