"""Reading runs out of the two stores the CLI writes, as JSON for the pages and the REST API.

Crew runs live in the checkpoint database (``crewgraph checkpoints``), flow
runs in the flow state database (``crewgraph flows``); both are read with the
stores' own classes, opened per request and closed again (SQLite handles the
concurrent writer, e.g. a ``crewgraph run`` in another terminal). A database
that does not exist yet is an empty list, never created by looking.

Cost is reported as unknown (``cost_usd: null``): crewgraph keeps token counts,
not prices, and guessing a price table would be wrong for most endpoints.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

from crewgraph.checkpoint.location import (
    Location,
    is_store_url,
    open_checkpoint_store,
    store_exists,
)
from crewgraph.checkpoint.setup import FACTORY_META_KEY
from crewgraph.errors import CheckpointError

__all__ = ["COST_NOTE", "crew_runs", "find_run", "flow_runs", "job_summary", "node_output", "open_flow_store", "saved_nodes"]

COST_NOTE = "unknown: crewgraph records tokens, not prices"


def _iso(value: datetime | None) -> str | None:
    return value.astimezone(UTC).isoformat() if value is not None else None


def _tokens(nodes: list[Any]) -> int:
    return sum(int(n.info.get("tokens") or 0) for n in nodes if not n.info.get("parent"))


def _active_seconds(nodes: list[Any], wall: float) -> float:
    """How long the run ran: the union of its planned nodes' [start, end] intervals, so the hours a
    paused run waited for an answer (or a crashed one for its resume) do not count. The wall time
    between creation and the last update when the records carry no timings."""
    spans = sorted(
        (float(n.info["started_at"]), float(n.info["started_at"]) + float(n.info.get("duration_ms") or 0) / 1000)
        for n in nodes
        if not n.info.get("parent") and isinstance(n.info.get("started_at"), int | float)
    )
    if not spans:
        return round(wall, 3)
    total, (start, end) = 0.0, spans[0]
    for s, e in spans[1:]:
        if s > end:
            total += end - start
            start, end = s, e
        else:
            end = max(end, e)
    return round(total + end - start, 3)


def _crew_pending(info: Any) -> list[dict[str, Any]]:
    """The reviews a paused crew run waits for (``human_input`` tasks), without their conversations."""
    from crewgraph.runner.human_pause import PAUSE_META_KEY

    saved = info.meta.get(PAUSE_META_KEY)
    if info.status != "paused" or not isinstance(saved, dict):
        return []
    return [
        {"task": p.get("task"), "method": p.get("task"), "question": p.get("question"), "draft": p.get("draft"),
         "key": p.get("key"), "node": p.get("node")}
        for p in saved.get("pending") or []
    ]


def _crew_summary(info: Any, nodes: list[Any]) -> dict[str, Any]:
    inputs = info.meta.get("inputs")
    return {
        "run_id": info.run_id,
        "kind": str(info.meta.get("kind") or "crew"),
        "name": info.name,
        "status": info.status,
        "created_at": _iso(info.created_at),
        "updated_at": _iso(info.updated_at),
        "duration_s": _active_seconds(nodes, (info.updated_at - info.created_at).total_seconds()),
        "tokens": _tokens(nodes),
        "cost_usd": None,
        "cost": COST_NOTE,
        "nodes_completed": info.nodes_completed,
        "parent_run_id": info.parent_run_id,
        "branch": info.branch,
        "error": info.error,
        "inputs": inputs if isinstance(inputs, dict) else {},
        "factory": info.meta.get(FACTORY_META_KEY),
        "demo_model": info.meta.get("demo_model") is True,  # answered by --llm fake, not a real model
        "pending": _crew_pending(info),
        "store": "checkpoints",
    }


def crew_runs(db: Location, limit: int | None = 100) -> list[dict[str, Any]]:
    """Crew runs in the checkpoint database, newest first."""
    if not store_exists(db):
        return []
    with open_checkpoint_store(db) as store:
        return [_crew_summary(info, store.nodes(info.run_id)) for info in store.list_runs(limit=limit)]


_flow_stores: dict[str, Any] = {}
_flow_stores_lock = threading.Lock()


def open_flow_store(flow_db: Location) -> Any:
    """The flow store at ``flow_db``: a SQLite file opened per operation, or a PostgreSQL store
    kept per URL (one connection shared by the server's threads, not one per request)."""
    from crewgraph.flow.persistence import flow_persistence

    if not is_store_url(flow_db):
        return flow_persistence(flow_db)
    with _flow_stores_lock:
        store = _flow_stores.get(str(flow_db))
        if store is None:
            store = _flow_stores[str(flow_db)] = flow_persistence(flow_db)
        return store


def _flow_summary(record: dict[str, Any], steps: int | None = None) -> dict[str, Any]:
    updated = record.get("updated_at")
    return {
        "run_id": str(record.get("run_id")),
        "kind": "flow",
        "name": str(record.get("flow_name") or "flow"),
        "status": str(record.get("status") or "unknown"),
        "created_at": None,
        "updated_at": updated,
        "duration_s": None,
        "tokens": None,
        "cost_usd": None,
        "cost": COST_NOTE,
        "nodes_completed": steps,
        "parent_run_id": None,
        "branch": None,
        "error": record.get("error"),
        "inputs": {},
        "factory": None,
        "pending": [
            {"method": p.get("method"), "question": p.get("question"), "key": p.get("key")}
            for p in record.get("pending") or []
        ],
        "flow": record.get("flow"),
        "store": "flows",
    }


def flow_runs(flow_db: Location, limit: int = 100) -> list[dict[str, Any]]:
    """Flow runs in the flow state database (journaled runs only), newest first."""
    if not store_exists(flow_db):
        return []
    return [_flow_summary(r) for r in open_flow_store(flow_db).list_runs(limit)]


def find_run(db: Location, flow_db: Location, run_ref: str) -> dict[str, Any] | None:
    """The summary of one run (a unique prefix of a crew run id is enough), or None."""
    if store_exists(db):
        with open_checkpoint_store(db) as store:
            try:
                run_id = store.resolve_run_id(run_ref)
            except CheckpointError as exc:
                if "several runs" in str(exc):
                    raise
            else:
                info = store.get_run(run_id)
                return _crew_summary(info, store.nodes(run_id))
    if store_exists(flow_db):
        store = open_flow_store(flow_db)
        record = store.load_run(run_ref)
        if record is not None:
            listed = next((r for r in store.list_runs(1000) if r.get("run_id") == run_ref), record)
            return _flow_summary(listed, len(store.load_steps(run_ref)))
    return None


def saved_nodes(db: Location, run_id: str, calls: bool = False) -> dict[str, Any]:
    """``{node_id: NodeCheckpoint}`` of a crew run (empty when unknown); ``calls``: with each
    node's saved model and tool calls."""
    if not store_exists(db):
        return {}
    with open_checkpoint_store(db) as store:
        if not store.has_run(run_id):
            return {}
        return {n.node_id: n for n in store.nodes(run_id, calls=calls)}


def node_output(db: Location, flow_db: Location, run: dict[str, Any], node_id: str) -> tuple[bool, Any]:
    """``(found, value)``: the saved output of ``node_id`` (a crew node, or a flow method)."""
    if run["store"] == "memory":
        return False, None
    if run["store"] == "checkpoints":
        if not store_exists(db):
            return False, None
        with open_checkpoint_store(db) as store:
            outputs = store.completed(run["run_id"])
        return (node_id in outputs), outputs.get(node_id)
    from crewgraph.flow._journal import load_output

    found: list[Any] = []
    for method, blob in open_flow_store(flow_db).load_steps(run["run_id"]):
        if method == node_id and blob:
            found.append(load_output(blob))
    return (bool(found), found[-1] if found else None)


def job_summary(job: Any) -> dict[str, Any]:
    """A run only this server knows (its crew or flow keeps no store): what its job saw."""
    rg = job.run_graph
    tokens = sum(r.usage.total_tokens for r in rg.records() if r.parent is None) if rg is not None else None
    ended = job.finished
    return {
        "run_id": job.run_id,
        "kind": "run",
        "name": job.target or "run",
        "status": job.status,
        "created_at": datetime.fromtimestamp(job.created, tz=UTC).isoformat(),
        "updated_at": datetime.fromtimestamp(ended or job.created, tz=UTC).isoformat(),
        "duration_s": round(ended - job.created, 3) if ended is not None else None,
        "tokens": tokens,
        "cost_usd": None,
        "cost": COST_NOTE,
        "nodes_completed": None,
        "parent_run_id": None,
        "branch": None,
        "error": job.error,
        "inputs": {},
        "factory": None,
        "pending": [],
        "store": "memory",
    }
