"""What the event bus says about one run, kept per node for the node panel and the live graph.

The checkpoint store keeps each finished node's output and run record, but not
the prompt a model was sent, the arguments a tool got, or a node that is
running right now. The bus carries all of that; :class:`RunTrace` keeps the
part the UI shows (texts truncated), for the runs this server started.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any

from crewgraph.graph.call_records import MAX_CALLS, MAX_TEXT, clip

__all__ = ["MAX_TEXT", "RunTrace", "event_summary"]

_MAX_CALLS = MAX_CALLS
_MAX_EVENTS = 500


_SMALL_FIELDS = ("label", "attempt", "attempts", "duration_ms", "total_tokens", "error", "wait_seconds",
                 "tool_name", "model", "reason", "flow_name", "crew_name", "method_name", "questions")


def event_summary(event: Any) -> dict[str, Any]:
    """The few fields of an event a live page needs (no prompts or outputs: those are fetched)."""
    data: dict[str, Any] = {
        "type": event.event_type,
        "run_id": event.run_id,
        "node_id": event.node_id,
        "node_kind": event.node_kind,
        "timestamp": event.timestamp.isoformat(),
    }
    for name in _SMALL_FIELDS:
        value = getattr(event, name, None)
        if value is not None:
            data[name] = clip(value, 500)
    return data


class RunTrace:
    """Per node: status, model calls (messages, response, tokens), tool arguments and results,
    errors and retries, as the bus reported them; plus the run's recent events for late
    subscribers. Thread-safe: events arrive from scheduler threads."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.nodes: dict[str, dict[str, Any]] = {}
        self.events: deque[dict[str, Any]] = deque(maxlen=_MAX_EVENTS)
        self.status = "running"
        self.version = 0
        self.started = time.time()
        self._lock = threading.Lock()

    def node(self, node_id: str) -> dict[str, Any]:
        with self._lock:
            found = self.nodes.get(node_id)
            return clip(found) if found is not None else {}

    def statuses(self) -> dict[str, str]:
        with self._lock:
            return {nid: str(n["status"]) for nid, n in self.nodes.items() if "status" in n}

    def record(self, event: Any) -> dict[str, Any]:
        summary = event_summary(event)
        with self._lock:
            self.version += 1
            self.events.append(summary)
            self._apply(event)
        return summary

    def _entry(self, node_id: str, kind: str | None) -> dict[str, Any]:
        entry = self.nodes.setdefault(node_id, {"id": node_id, "llm_calls": [], "retries": []})
        if kind:
            entry["kind"] = kind
        return entry

    def _apply(self, event: Any) -> None:
        kind = event.event_type
        if kind in ("crew_kickoff_failed", "flow_failed"):
            self.status = "failed"
        elif kind in ("crew_kickoff_completed", "flow_finished"):
            self.status = "completed"
        elif kind == "flow_paused":
            self.status = "paused"
        if not event.node_id:
            return
        n = self._entry(event.node_id, event.node_kind)
        if kind == "node_started":
            n.update(status="running", attempt=event.attempt, label=event.label)
        elif kind == "node_finished":
            n.update(status="restored" if event.from_checkpoint else "completed",
                     duration_ms=event.duration_ms, tokens=event.total_tokens)
            if event.output_preview is not None:
                n["output_preview"] = clip(event.output_preview)
        elif kind == "node_failed":
            n.update(status="failed", error=clip(event.error), attempts=event.attempts)
        elif kind == "node_retried":
            n["retries"].append({"attempt": event.attempt, "error": clip(event.error, 2000),
                                 "wait_seconds": event.wait_seconds})
        elif kind == "node_skipped":
            n.update(status="skipped", reason=event.reason)
        elif kind == "llm_call_started":
            calls = n["llm_calls"]
            if len(calls) < _MAX_CALLS:
                calls.append({"model": event.model, "messages": clip(event.messages), "tools": list(event.tools)})
        elif kind in ("llm_call_completed", "llm_call_failed") and n["llm_calls"]:
            call = n["llm_calls"][-1]
            if kind == "llm_call_completed":
                call.update(response=clip(event.response), tool_calls=clip(event.tool_calls),
                            tokens=event.total_tokens, duration_ms=event.duration_ms,
                            finish_reason=event.finish_reason)
            else:
                call["error"] = clip(event.error, 2000)
        elif kind == "tool_usage_started":
            n.update(tool_name=event.tool_name, tool_args=clip(event.tool_args))
        elif kind == "tool_usage_finished":
            n.update(tool_name=event.tool_name, tool_args=clip(event.tool_args),
                     tool_output=clip(event.output), from_cache=event.from_cache)
        elif kind == "tool_usage_error":
            n.update(tool_name=event.tool_name, tool_args=clip(event.tool_args), error=clip(event.error))
