"""Record a task run's timing and counters on the ``Task`` (CrewAI's run state on a task).

Called when a task's output is final, from what the scheduler recorded: ``start_time`` is when
the task's first node started, ``end_time`` now; one ``increment_tools_errors()`` per tool
failure in the output; one ``increment_delegations(role)`` per coworker step the task's agent
spawned (a delegation or a question, as CrewAI counts both).

The coworker steps are found among the agent step's own children (``children``, the
scheduler's spawn index): walking every record of the run for each task made a crew's
run quadratic in its tasks (half the CPU of a 10,000-task kickoff, issue 28).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from crewgraph.graph.run_record import RunRecord

__all__ = ["record_task_stats"]

_COWORKER_MODES = (".delegate.", ".ask.")


def record_task_stats(task: Any, output: Any, plan: Mapping[str, Any] | None,
                      records: Mapping[str, RunRecord], children: Callable[[str], Iterable[str]]) -> None:
    """Feed ``task``'s run state from ``plan`` (the compiled task's node ids) and ``records``."""
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
    for child in dict.fromkeys(children(agent_step)):  # a node spawned again keeps one record
        rec = records.get(child)
        if rec is not None and rec.parent == agent_step and any(m in child for m in _COWORKER_MODES):
            task.increment_delegations(rec.label.split(": ", 1)[0] or None)
