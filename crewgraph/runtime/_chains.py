"""The scheduler's dispatch units: the nodes of one task that run one after another.

A task compiles to a short chain -- its step (``agent_step``), then ``convert`` and
``guardrail`` nodes -- each node triggered by the one before it alone. Locally each is
one cheap step; an executor that runs steps elsewhere (Ray) pays a round trip per step,
so the scheduler tells it which nodes form a chain and the executor may run a chain in
one go. The scheduler still runs every node of it itself: ``run_node``, retries,
timeouts, events, records and checkpoints do not change; the executor only answers
the steps from what it already computed (see :mod:`crewgraph.distributed._chain`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

__all__ = ["task_chains"]


def task_chains(
    digraph: Any,
    preds: Mapping[str, tuple[str, ...]],
    succs: Mapping[str, tuple[tuple[str, str | None], ...]],
    join: Mapping[str, str],
    entry: Collection[str],
    restored: Collection[str],
) -> dict[str, str]:
    """Node id -> the node of the same task that runs right after it and only because of it.

    ``v`` follows ``u`` when both carry the same ``task`` in the compiled graph, ``u`` is
    ``v``'s one predecessor (``join="all"``), the edge has no route, ``u`` has no other
    successor in its task, and ``v`` is neither an entry node nor restored from a
    checkpoint (it will run, and only once ``u`` has)."""
    nodes = digraph.nodes
    chains: dict[str, str] = {}
    for u, out in succs.items():
        task = nodes[u].get("task")
        if task is None or any(route is not None for _, route in out):
            continue
        same = {v for v, _ in out if nodes[v].get("task") == task}
        if len(same) != 1:
            continue
        (v,) = same
        if set(preds.get(v, ())) != {u} or join.get(v, "all") != "all" or v in entry or v in restored:
            continue
        chains[u] = v
    return chains
