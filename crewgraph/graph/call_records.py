"""A node's model and tool calls as the checkpoint store keeps them, and back.

Why: the executed graph of a run that is still in memory has every spawned
child (``<step>.llm<n>`` model turns, ``<step>.it<i>.<k>.<tool>`` tool calls),
and each child's :attr:`RunRecord.detail` holds what a reader of the run wants
to see (the messages a model was sent and what it answered, what a tool
returned). A run read back from the store (``crewgraph run`` in a terminal,
then ``crewgraph ui`` or ``crewgraph plot --run``) had only the planned nodes.
So the scheduler saves each finished node's children under ``info["calls"]``
(:func:`saved_calls`), texts cut to :data:`MAX_TEXT` characters, and the
readers turn them back into child records (:func:`restored_calls`).

Bounds: at most :data:`MAX_CALLS` children per node are saved with their
texts, the rest as bare records (status, time, tokens), and at most
:data:`MAX_RECORDS` records at all; a conversation keeps its last
:data:`MAX_MESSAGES` messages. The store lists runs without these
(``SQLiteCheckpointStore.nodes(calls=False)``), so a long prompt costs
nothing to a runs listing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from crewgraph.graph.run_record import RunRecord
from crewgraph.outputs import UsageMetrics

__all__ = ["CALLS_KEY", "MAX_CALLS", "MAX_TEXT", "clip", "descendants", "restored_calls", "saved_calls"]

CALLS_KEY = "calls"
MAX_TEXT = 20_000
MAX_CALLS = 50
MAX_RECORDS = 500
MAX_MESSAGES = 200


def clip(value: Any, limit: int = MAX_TEXT) -> Any:
    """``value`` as JSON-friendly data with long strings cut (the texts are for reading)."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + f"... [{len(value) - limit} more characters]"
    if isinstance(value, dict):
        return {str(k): clip(v, limit) for k, v in list(value.items())[:200]}
    if isinstance(value, list | tuple):
        return [clip(v, limit) for v in list(value)[:200]]
    if value is None or isinstance(value, bool | int | float):
        return value
    for name in ("text", "raw"):  # a tool's outcome (what the model read), a task's output
        found = getattr(value, name, None)
        if isinstance(found, str):
            return clip(found, limit)
    return clip(str(value), limit)


def descendants(
    records: dict[str, RunRecord], children: Callable[[str], Iterable[str]], node_id: str
) -> list[RunRecord]:
    """Every record ``node_id`` spawned, transitively: its model turns (``<id>.llm<n>``, counted
    in its ``info["llm_calls"]``) and its spawned nodes (``children(id)``), in start order."""
    found: list[RunRecord] = []
    stack = [node_id]
    while stack and len(found) < MAX_RECORDS:
        current = stack.pop()
        rec = records.get(current)
        if rec is None:
            continue
        if current != node_id:
            found.append(rec)
        turns = rec.info.get("llm_calls")
        if isinstance(turns, int):
            found.extend(r for n in range(1, turns + 1) if (r := records.get(f"{current}.llm{n}")) is not None)
        stack.extend(children(current))
    found.sort(key=lambda r: r.started_at or 0.0)
    return found[:MAX_RECORDS]


def _detail(rec: RunRecord) -> dict[str, Any] | None:
    if not rec.detail:
        return None
    detail = dict(rec.detail)
    messages = detail.get("messages")
    if isinstance(messages, list) and len(messages) > MAX_MESSAGES:
        detail["messages"] = messages[-MAX_MESSAGES:]
        detail["messages_dropped"] = len(messages) - MAX_MESSAGES
    return dict(clip(detail))


def saved_calls(records: Iterable[RunRecord]) -> list[dict[str, Any]]:
    """The records as JSON for the store: each record's ``to_json()`` plus its cut ``detail``
    (for the first :data:`MAX_CALLS`)."""
    saved: list[dict[str, Any]] = []
    for n, rec in enumerate(records):
        data = rec.to_json()
        data["info"] = clip(data["info"], 2_000)
        if n < MAX_CALLS:
            detail = _detail(rec)
            if detail is not None:
                data["detail"] = detail
        saved.append(data)
    return saved


def restored_calls(saved: Any) -> list[RunRecord]:
    """Child records from a saved ``info["calls"]`` (anything else: none)."""
    if not isinstance(saved, list):
        return []
    found: list[RunRecord] = []
    for data in saved:
        if not isinstance(data, dict) or not isinstance(data.get("id"), str):
            continue
        usage = data.get("usage")
        try:
            metrics = UsageMetrics(**usage) if isinstance(usage, dict) else UsageMetrics()
        except ValueError:
            metrics = UsageMetrics()
        detail = data.get("detail")
        found.append(RunRecord(
            node_id=data["id"],
            kind=str(data.get("kind") or ""),
            label=str(data.get("label") or data["id"]),
            status=str(data.get("status") or "completed"),
            parent=data.get("parent") if isinstance(data.get("parent"), str) else None,
            started_at=data.get("started_at") if isinstance(data.get("started_at"), int | float) else None,
            duration_ms=float(data.get("duration_ms") or 0.0),
            usage=metrics,
            attempts=int(data.get("attempts") or 0),
            executions=int(data.get("executions") or 0),
            error=data.get("error") if isinstance(data.get("error"), str) else None,
            info=dict(data.get("info") or {}),
            detail=dict(detail) if isinstance(detail, dict) else None,
        ))
    return found
