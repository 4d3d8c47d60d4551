"""Every LLM call of a run as a child record of the node that made it (for the executed graph).

Why child records rather than a list in the step's ``info``: the executed
graph already draws spawned children (tool calls) with their status,
duration and error, so an LLM turn drawn the same way shows *where* the time
went and *which* call failed or was retried, with no special case in the
exporters. Each record is ``<node id>.llm<n>`` (kind ``"llm"``, ``parent`` the
node), numbered across the node's retries so a retried call stays visible.

Tokens stay on the parent node's usage (that is what the run totals add up);
the child carries them in its label and ``info`` only, so nothing is counted
twice. The tracer listens on the event bus, so it covers every node kind that
calls a model through ``call_llm`` (agent steps, convert, guardrail judges,
planning, managers) without those nodes knowing about it.

Transport retries (a 429 or 5xx the client retried with backoff) happen inside
one call; they are counted on that call's record (``attempts``, so the graph
says "2 retries", and ``info["retry_errors"]``), since "why was this call slow"
is what a reader of the executed graph asks.
"""

from __future__ import annotations

import time
from collections import deque
from types import TracebackType
from typing import Any

from crewgraph.events.bus import CrewGraphEventsBus, crewgraph_event_bus
from crewgraph.events.llm_events import (
    LLMCallCompletedEvent,
    LLMCallFailedEvent,
    LLMCallRetryEvent,
    LLMCallStartedEvent,
)
from crewgraph.graph.run_record import RunRecord

__all__ = ["LLM_KIND", "LLMCallTracer"]

LLM_KIND = "llm"


class LLMCallTracer:
    """Context manager: while active, LLM events of ``scheduler``'s run become child records.

    Only events stamped with the scheduler's run id, emitted on behalf of
    ``source`` (the crew) and attributed to one of its nodes are taken, so
    concurrent runs and an enclosing flow sharing the run id do not mix in.
    """

    def __init__(self, scheduler: Any, source: Any = None, bus: CrewGraphEventsBus | None = None) -> None:
        self.scheduler = scheduler
        self.source = source if source is not None else scheduler.source
        self.bus = bus or crewgraph_event_bus
        self._in_flight: dict[str, deque[RunRecord]] = {}
        self._counts: dict[str, int] = {}

    def __enter__(self) -> LLMCallTracer:
        self.bus.register_handler(LLMCallStartedEvent, self._started, inline=True)
        self.bus.register_handler(LLMCallCompletedEvent, self._completed, inline=True)
        self.bus.register_handler(LLMCallFailedEvent, self._failed, inline=True)
        self.bus.register_handler(LLMCallRetryEvent, self._retried, inline=True)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.bus.off(LLMCallStartedEvent, self._started)
        self.bus.off(LLMCallCompletedEvent, self._completed)
        self.bus.off(LLMCallFailedEvent, self._failed)
        self.bus.off(LLMCallRetryEvent, self._retried)
        for pending in self._in_flight.values():
            for rec in pending:
                rec.status = "cancelled"
        self._in_flight.clear()

    # ------------------------------------------------------------------ handlers
    def _owner(self, source: Any, event: Any) -> str | None:
        node_id = event.node_id
        if source is not self.source or event.run_id != self.scheduler.run_id or node_id is None:
            return None
        return node_id if node_id in self.scheduler.records else None

    def _started(self, source: Any, event: LLMCallStartedEvent) -> None:
        node_id = self._owner(source, event)
        if node_id is None:
            return
        n = self._counts.get(node_id, 0) + 1
        self._counts[node_id] = n
        rec = RunRecord(
            node_id=f"{node_id}.llm{n}",
            kind=LLM_KIND,
            label=f"LLM · {event.model}",
            status="running",
            parent=node_id,
            started_at=time.time(),
            attempts=1,
            info={"model": event.model, "tools": list(event.tools), "response_model": event.response_model},
        )
        self.scheduler.records[rec.node_id] = rec
        self._in_flight.setdefault(node_id, deque()).append(rec)
        self.scheduler.records[node_id].info["llm_calls"] = n

    def _pop(self, source: Any, event: Any) -> RunRecord | None:
        node_id = self._owner(source, event)
        pending = self._in_flight.get(node_id) if node_id is not None else None
        if not pending:
            return None
        rec = pending.popleft()
        rec.duration_ms = (time.time() - (rec.started_at or time.time())) * 1000
        return rec

    def _completed(self, source: Any, event: LLMCallCompletedEvent) -> None:
        rec = self._pop(source, event)
        if rec is None:
            return
        rec.status = "completed"
        rec.executions = 1
        rec.duration_ms = event.duration_ms or rec.duration_ms
        rec.label = f"LLM · {event.model} · {event.total_tokens} tok"
        rec.info.update(
            prompt_tokens=event.prompt_tokens,
            completion_tokens=event.completion_tokens,
            total_tokens=event.total_tokens,
            tool_calls=list(event.tool_calls),
        )

    def _failed(self, source: Any, event: LLMCallFailedEvent) -> None:
        rec = self._pop(source, event)
        if rec is None:
            return
        rec.status = "failed"
        rec.executions = 1  # one call that failed, not a retry
        rec.error = event.error
        if event.status_code is not None:
            rec.info["status_code"] = event.status_code

    def _retried(self, source: Any, event: LLMCallRetryEvent) -> None:
        """The client is about to retry the oldest call in flight for this node (a node makes
        its model calls one after the other, so that is the call being retried)."""
        node_id = self._owner(source, event)
        pending = self._in_flight.get(node_id) if node_id is not None else None
        if not pending:
            return
        rec = pending[0]
        rec.attempts += 1
        rec.info.setdefault("retry_errors", []).append(event.error)
