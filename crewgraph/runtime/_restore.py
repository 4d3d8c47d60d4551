"""What a run exchanges with its checkpoint store beside outputs: on resume, the usage and the
route of each restored node; on failure, the failed node's record and calls."""

from __future__ import annotations

import logging
from typing import Any

from crewgraph.graph.call_records import CALLS_KEY, saved_calls
from crewgraph.graph.run_record import RunRecord
from crewgraph.outputs import UsageMetrics
from crewgraph.runtime._plan import RunPlan

__all__ = ["load_restored", "save_failure"]


def load_restored(checkpointer: Any, run_id: str, restored: dict[str, Any], plan: RunPlan,
                  routes: dict[str, str | None]) -> dict[str, UsageMetrics]:
    """Tokens each restored node (and what it spawned) spent in the run that computed it,
    so a resumed run reports the whole run's usage, not only what ran this time; and the
    route each one took (into ``routes``), so its successors fire as they did then. A routed
    node whose route is unknown is taken out of ``restored``: it runs again."""
    nodes = getattr(checkpointer, "nodes", None)
    usage: dict[str, UsageMetrics] = {}
    for saved in nodes(run_id) if restored and nodes is not None else ():
        if saved.node_id not in restored:
            continue
        if "route" in saved.info:
            route = saved.info["route"]
            routes[saved.node_id] = route if isinstance(route, str) else None
        data = saved.info.get("run_usage") or saved.info.get("usage")
        if isinstance(data, dict):
            try:
                usage[saved.node_id] = UsageMetrics.model_validate(data)
            except ValueError:
                continue
    for nid in list(restored):
        routed = any(r is not None for _dst, r in plan.succs.get(nid, ()))
        if routed and nid not in routes:
            del restored[nid]  # which branch it took is unknown: ask it again
    return usage


def save_failure(checkpointer: Any, run_id: str, nid: str, rec: RunRecord, calls: list[RunRecord]) -> None:
    """A failed node's record and ``calls`` into the store (if it keeps failures), so a reader of
    the store draws it failed, not pending. A store that cannot take it does not hide the
    node's own error: the run fails with that one, and the store's problem is logged."""
    save = getattr(checkpointer, "save_failure", None)
    if save is None or rec.status != "failed":
        return
    info = rec.to_json()
    if calls:
        info[CALLS_KEY] = saved_calls(calls)
    try:
        save(run_id, nid, info=info)
    except Exception as exc:  # the node's error is the one to report
        logging.getLogger("crewgraph.checkpoint").warning(
            "could not record the failure of node %r in the checkpoint store: %s", nid, exc)
