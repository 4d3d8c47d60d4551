"""Every LLM call of a run as a child record of the node that made it (for the executed graph).

Why child records rather than a list in the step's ``info``: the executed
graph already draws spawned children (tool calls) with their status,
duration and error, so an LLM turn drawn the same way shows *where* the time
went and *which* call failed or was retried, with no special case in the
exporters. Each record is ``<node id>.llm<n>`` (kind ``"llm"``, ``parent`` the
node), numbered across the node's retries so a retried call stays visible.

Tokens stay on the parent node's usage (that is what the run totals add up);
the child carries them in its label and ``info`` only, so nothing is counted
twice. The tracer is fed by each node's emitter (``ctx.emit``), so it covers
every node kind that calls a model through ``call_llm`` (agent steps, convert,
guardrail judges, planning, managers). It is not a bus listener: when no one
listens on the bus, ``call_llm`` records the call here directly and builds no
event object (events cost ~12 us each); when someone does, the event it builds
feeds both. Events of a step that ran on a remote worker come back to the
driver's emitter and are recorded from there.

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

from crewgraph.events.base import BaseEvent
from crewgraph.events.bus import CrewGraphEventsBus
from crewgraph.events.llm_events import (
    LLMCallCompletedEvent,
    LLMCallFailedEvent,
    LLMCallRetryEvent,
    LLMCallStartedEvent,
)
from crewgraph.graph.run_record import RunRecord

__all__ = ["LLM_KIND", "TRACED_EVENTS", "LLMCallTracer"]

LLM_KIND = "llm"

TRACED_EVENTS: tuple[type[BaseEvent], ...] = (
    LLMCallStartedEvent,
    LLMCallCompletedEvent,
    LLMCallFailedEvent,
    LLMCallRetryEvent,
)
"""The event kinds the tracer records (the node's emitter ``wants`` them while it is active)."""


class LLMCallTracer:
    """Context manager: while active, the LLM calls of ``scheduler``'s nodes become child records.

    It is no bus listener: it hangs itself on the scheduler (``scheduler.llm_tracer``), and
    a node's emitter hands it the calls of that node, so only this run's nodes are recorded
    (concurrent runs and an enclosing flow sharing the run id do not mix in) and, when no
    one else listens, no event object is built for it at all. ``source`` and ``bus`` are
    accepted for callers of the former, listening form; they are not used.
    """

    def __init__(self, scheduler: Any, source: Any = None, bus: CrewGraphEventsBus | None = None) -> None:
        self.scheduler = scheduler
        self._in_flight: dict[str, deque[RunRecord]] = {}
        self._counts: dict[str, int] = {}
        self._previous: Any = None

    def __enter__(self) -> LLMCallTracer:
        self._previous = getattr(self.scheduler, "llm_tracer", None)
        self.scheduler.llm_tracer = self
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.scheduler.llm_tracer = self._previous
        for pending in self._in_flight.values():
            for rec in pending:
                rec.status = "cancelled"
        self._in_flight.clear()

    # ------------------------------------------------------------------ events
    @staticmethod
    def traces(event_type: type[BaseEvent]) -> bool:
        """Whether events of this type feed the tracer."""
        return issubclass(event_type, TRACED_EVENTS)

    def take(self, node_id: str, event: BaseEvent) -> None:
        """Record ``event`` (emitted by node ``node_id``) if it is an LLM call's; other events
        are ignored. This is the path of events that were built anyway: a listener wants
        them, or they come back from a remote worker."""
        if isinstance(event, LLMCallStartedEvent):
            messages = event.messages if isinstance(event.messages, list) else None
            self.started(node_id, event.model or "", [str(t) for t in event.tools or ()], event.response_model,
                         messages)
        elif isinstance(event, LLMCallCompletedEvent):
            self.completed(
                node_id, event.model or "", duration_ms=event.duration_ms, prompt_tokens=event.prompt_tokens,
                completion_tokens=event.completion_tokens, total_tokens=event.total_tokens,
                tool_calls=event.tool_calls, response=event.response, finish_reason=event.finish_reason,
            )
        elif isinstance(event, LLMCallFailedEvent):
            self.failed(node_id, event.error, event.status_code)
        elif isinstance(event, LLMCallRetryEvent):
            self.retried(node_id, event.error)

    # ------------------------------------------------------------------ direct records
    def started(
        self, node_id: str, model: str, tools: list[str], response_model: str | None,
        messages: list[dict[str, Any]] | None = None,
    ) -> None:
        """A call of node ``node_id`` began. ``messages`` (copied: the step's conversation grows
        on) become the record's ``detail``, which the checkpoint store keeps for the UI."""
        parent = self.scheduler.records.get(node_id)
        if parent is None:
            return
        n = self._counts.get(node_id, 0) + 1
        self._counts[node_id] = n
        rec = RunRecord(
            node_id=f"{node_id}.llm{n}",
            kind=LLM_KIND,
            label=f"LLM · {model}",
            status="running",
            parent=node_id,
            started_at=time.time(),
            attempts=1,
            info={"model": model, "tools": list(tools), "response_model": response_model},
            detail={"messages": list(messages)} if messages is not None else None,
        )
        self.scheduler.records[rec.node_id] = rec
        self._in_flight.setdefault(node_id, deque()).append(rec)
        parent.info["llm_calls"] = n

    def _pop(self, node_id: str) -> RunRecord | None:
        pending = self._in_flight.get(node_id)
        if not pending:
            return None
        rec = pending.popleft()
        rec.duration_ms = (time.time() - (rec.started_at or time.time())) * 1000
        return rec

    def completed(
        self, node_id: str, model: str, *, duration_ms: float | None, prompt_tokens: int,
        completion_tokens: int, total_tokens: int, tool_calls: list[str],
        response: str | None = None, finish_reason: str | None = None,
    ) -> None:
        """The oldest call in flight of node ``node_id`` answered (``response``: its text, or the
        structured answer as JSON)."""
        rec = self._pop(node_id)
        if rec is None:
            return
        if response is not None or finish_reason is not None:
            rec.detail = {**(rec.detail or {}), "response": response, "finish_reason": finish_reason}
        rec.status = "completed"
        rec.executions = 1
        rec.duration_ms = duration_ms or rec.duration_ms
        rec.label = f"LLM · {model} · {total_tokens} tok"
        rec.info.update(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=total_tokens,
            tool_calls=list(tool_calls),
        )

    def failed(self, node_id: str, error: str, status_code: int | None) -> None:
        """The oldest call in flight of node ``node_id`` failed."""
        rec = self._pop(node_id)
        if rec is None:
            return
        rec.status = "failed"
        rec.executions = 1  # one call that failed, not a retry
        rec.error = error
        if status_code is not None:
            rec.info["status_code"] = status_code

    def retried(self, node_id: str, error: str) -> None:
        """The client is about to retry the oldest call in flight for this node (a node makes
        its model calls one after the other, so that is the call being retried)."""
        pending = self._in_flight.get(node_id)
        if not pending:
            return
        rec = pending[0]
        rec.attempts += 1
        rec.info.setdefault("retry_errors", []).append(error)
