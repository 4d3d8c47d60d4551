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

Bounds, so a run with many large model calls cannot grow the store without
end: a conversation keeps its last :data:`MAX_MESSAGES` messages; at most
:data:`MAX_CALLS` children per node keep their texts, and at most
:data:`MAX_RECORDS` are saved at all; one node's saved texts stop at
:data:`NODE_TEXT_BUDGET` characters and one run's at :data:`RUN_TEXT_BUDGET`
(:func:`run_budget` opens a run's budget around its scheduler; without one,
each node has its own). Nothing is cut silently: a record saved without its
texts says why in ``info["truncated"]`` (the UI shows a node's info), a cut
text ends with ``... [N more characters]``, and the first time a run's
budget runs out a warning is logged. The store lists runs without these
(``SQLiteCheckpointStore.nodes(calls=False)``), so a long prompt costs
nothing to a runs listing.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from crewgraph.graph.run_record import RunRecord
from crewgraph.outputs import UsageMetrics

__all__ = [
    "CALLS_KEY",
    "MAX_CALLS",
    "MAX_RECORDS",
    "MAX_TEXT",
    "NODE_TEXT_BUDGET",
    "RUN_TEXT_BUDGET",
    "TRUNCATED_KEY",
    "CallBudget",
    "clip",
    "descendants",
    "restored_calls",
    "run_budget",
    "saved_calls",
]

CALLS_KEY = "calls"
TRUNCATED_KEY = "truncated"
"""``info`` key of a saved call record that lost texts to a bound: what was dropped and why."""
MAX_TEXT = 20_000
MAX_CALLS = 50
MAX_RECORDS = 500
MAX_MESSAGES = 200
NODE_TEXT_BUDGET = 2_000_000
"""Characters of saved call texts (messages, answers, tool results, as JSON) one node may keep."""
RUN_TEXT_BUDGET = 20_000_000
"""Characters of saved call texts one run (one kickoff or resume) may keep, all nodes together."""

_log = logging.getLogger("crewgraph.checkpoint")


class CallBudget:
    """The characters of call texts a run may still save (thread-safe: nodes finish anywhere)."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = RUN_TEXT_BUDGET if limit is None else limit
        self.used = 0
        self.refused = 0
        """Records saved without their texts because the budget was spent."""
        self._lock = threading.Lock()

    def take(self, size: int) -> bool:
        """Spend ``size`` characters if they fit; False (and a warning, the first time) if not."""
        with self._lock:
            if self.used + size <= self.limit:
                self.used += size
                return True
            self.refused += 1
            first = self.refused == 1
        if first:
            _log.warning(
                "this run's saved model and tool calls reached their budget of %d characters "
                "(crewgraph.graph.call_records.RUN_TEXT_BUDGET): later calls are saved without their "
                "messages and outputs, marked 'truncated'", self.limit)
        return False


_RUN_BUDGET: ContextVar[CallBudget | None] = ContextVar("crewgraph_call_budget", default=None)


@contextmanager
def run_budget(limit: int | None = None) -> Iterator[CallBudget]:
    """One run's call-text budget, for every :func:`saved_calls` inside the block (and in the
    asyncio tasks started inside it, which copy the context)."""
    budget = CallBudget(limit)
    token = _RUN_BUDGET.set(budget)
    try:
        yield budget
    finally:
        _RUN_BUDGET.reset(token)


class _Calls(list[RunRecord]):
    """:func:`descendants`' answer: the records, and how many more it left off."""

    dropped: int = 0


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
    kept = _Calls(found[:MAX_RECORDS])
    kept.dropped = len(found) - len(kept)
    if len(stack) > 0 and len(found) >= MAX_RECORDS:  # the walk stopped with records left unseen
        kept.dropped = max(kept.dropped, 1)
    return kept


def _detail(rec: RunRecord) -> tuple[dict[str, Any] | None, str | None]:
    """The record's detail cut to size, and what the cut dropped (None: nothing)."""
    if not rec.detail:
        return None, None
    detail = dict(rec.detail)
    note = None
    messages = detail.get("messages")
    if isinstance(messages, list) and len(messages) > MAX_MESSAGES:
        detail["messages"] = messages[-MAX_MESSAGES:]
        detail["messages_dropped"] = len(messages) - MAX_MESSAGES
        note = f"the first {len(messages) - MAX_MESSAGES} of {len(messages)} messages were not kept (MAX_MESSAGES)"
    return dict(clip(detail)), note


def _mark(data: dict[str, Any], why: str) -> None:
    info = data["info"]
    info[TRUNCATED_KEY] = f"{info[TRUNCATED_KEY]}; {why}" if info.get(TRUNCATED_KEY) else why


def saved_calls(records: Iterable[RunRecord]) -> list[dict[str, Any]]:
    """The records as JSON for the store: each record's ``to_json()`` plus its cut ``detail``,
    within the bounds in the module's docstring; a record that lost texts says so in
    ``info["truncated"]``."""
    budget = _RUN_BUDGET.get()
    node_left = NODE_TEXT_BUDGET  # read at each call: a test (or a user) may lower it
    saved: list[dict[str, Any]] = []
    for n, rec in enumerate(records):
        data = rec.to_json()
        data["info"] = clip(data["info"], 2_000)
        detail, note = _detail(rec)
        if detail is not None:
            size = len(json.dumps(detail, default=str))
            if n >= MAX_CALLS:
                _mark(data, f"messages and output not kept: only a node's first {MAX_CALLS} calls keep them (MAX_CALLS)")
            elif size > node_left:
                _mark(data, f"messages and output ({size} characters) not kept: this node's calls reached "
                            f"their budget of {NODE_TEXT_BUDGET} characters (NODE_TEXT_BUDGET)")
            elif budget is not None and not budget.take(size):
                _mark(data, f"messages and output ({size} characters) not kept: the run's calls reached "
                            f"their budget of {budget.limit} characters (RUN_TEXT_BUDGET)")
            else:
                node_left -= size
                data["detail"] = detail
                if note is not None:
                    _mark(data, note)
        saved.append(data)
    dropped = getattr(records, "dropped", 0)
    if dropped and saved:
        _mark(saved[-1], f"more calls of this node were not saved: at most {MAX_RECORDS} are (MAX_RECORDS)")
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
