"""Record a task run's timing and counters on the ``Task`` (CrewAI's run state on a task).

Called when a task's output is final, from what the scheduler recorded: ``start_time`` is when
the task's first node started, ``end_time`` now; one ``increment_tools_errors()`` per tool
failure in the output; one ``increment_delegations(role)`` per coworker step the task's agent
spawned (a delegation or a question, as CrewAI counts both).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from crewgraph.graph.run_record import RunRecord

__all__ = ["record_task_stats"]

_COWORKER_MODES = (".delegate.", ".ask.")


def record_task_stats(task: Any, output: Any, plan: Mapping[str, Any] | None,
                      records: Mapping[str, RunRecord],
                      children_of: Callable[[str], list[str]] | None = None) -> None:
    """Feed ``task``'s run state from ``plan`` (the compiled task's node ids) and ``records``.
    ``children_of`` (the scheduler's ids of the nodes a node spawned) spares a scan of every
    record of the run per task, which made a crew's task bookkeeping O(N^2)."""
    if not hasattr(task, "record_times"):
        return
    started = None
    if plan is not None:
        first = records.get(str(plan["first"]))
        if first is not None and first.started_at is not None:
            started = datetime.fromtimestamp(first.started_at)
    task.record_times(started, datetime.now())
    for _ in getattr(output, "tool_failures", ()):
        task.increment_tools_errors()
    if plan is None:
        return
    agent_step = str(plan["agent"])
    if children_of is not None:
        # a node spawned again keeps one record: each id once
        spawned = [rec for nid in dict.fromkeys(children_of(agent_step)) if (rec := records.get(nid)) is not None]
    else:
        spawned = [rec for rec in records.values() if rec.parent == agent_step]
    for rec in spawned:
        if rec.parent == agent_step and any(m in rec.node_id for m in _COWORKER_MODES):
            task.increment_delegations(rec.label.split(": ", 1)[0] or None)
