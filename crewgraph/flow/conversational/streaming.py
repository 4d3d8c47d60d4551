"""``Flow.stream_turn``: one turn run in the background, its events as an iterator."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["TurnStream"]

_DONE = object()


class TurnStream:
    """Iterate for the turn's events (conversation, flow and method events of this flow, LLM
    stream chunks of its run) as they happen; ``.result`` is the turn's output once iteration ends (an error of
    the turn is raised from the iteration)."""

    def __init__(self, flow: Any, run: Callable[[], Any]) -> None:
        self._flow = flow
        self._run = run
        self._events: queue.Queue[Any] = queue.Queue()
        self._result: Any = None
        self._error: BaseException | None = None
        self._started = False
        self._done = False

    @property
    def result(self) -> Any:
        if not self._done:
            for _ in self:
                pass
        return self._result

    def __iter__(self) -> Iterator[Any]:
        if self._done:
            return
        if not self._started:
            self._start()
        while True:
            item = self._events.get(timeout=600)
            if item is _DONE:
                break
            yield item
        self._done = True
        if self._error is not None:
            raise self._error

    def _start(self) -> None:
        from crewgraph.events import conversation_events
        from crewgraph.events.bus import crewgraph_event_bus
        from crewgraph.events.flow_events import (
            FlowFinishedEvent,
            FlowStartedEvent,
            MethodExecutionFailedEvent,
            MethodExecutionFinishedEvent,
            MethodExecutionStartedEvent,
        )
        from crewgraph.events.llm_events import LLMStreamChunkEvent

        self._started = True
        mine = (FlowStartedEvent, FlowFinishedEvent, MethodExecutionStartedEvent,
                MethodExecutionFinishedEvent, MethodExecutionFailedEvent,
                *(getattr(conversation_events, name) for name in conversation_events.__all__))

        def on_flow(source: Any, event: Any) -> None:
            if source is self._flow:
                self._events.put(event)

        def on_chunk(source: Any, event: Any) -> None:
            if getattr(event, "run_id", None) and event.run_id == self._flow.run_id:
                self._events.put(event)

        for kind in mine:
            crewgraph_event_bus.register_handler(kind, on_flow)
        crewgraph_event_bus.register_handler(LLMStreamChunkEvent, on_chunk)

        def work() -> None:
            try:
                self._result = self._run()
            except BaseException as exc:
                self._error = exc
            finally:
                for kind in mine:
                    crewgraph_event_bus.off(kind, on_flow)
                crewgraph_event_bus.off(LLMStreamChunkEvent, on_chunk)
                self._events.put(_DONE)

        threading.Thread(target=work, name="crewgraph-stream-turn", daemon=True).start()
