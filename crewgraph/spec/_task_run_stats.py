"""CrewAI's per-run counters and timing on a ``Task``: ``start_time``/``end_time``,
``execution_duration``, ``tools_errors``, ``delegations``, ``processed_by_agents`` and the
``increment_*`` methods that feed them.

Run state, as in CrewAI: ``Task(tools_errors=...)`` stays refused (``spec/_unsupported.py``),
but the engine records each run of the task here when its output is final
(``crewgraph.runner.task_stats``): the times its first node started and its output was done,
one ``increment_tools_errors()`` per tool failure of its work, one ``increment_delegations(role)``
per coworker it delegated to or asked. As in CrewAI, the counters add up over the task's runs.
The mixin declares only the private attribute's type; ``Task`` declares it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any


class TaskRunStats:
    """The mixin: the state lives in the task's private ``_run_stats`` (made on first use)."""

    _run_stats: dict[str, Any] | None

    def _stats(self) -> dict[str, Any]:
        stats = self._run_stats
        if stats is None:
            stats = self._run_stats = {"start_time": None, "end_time": None, "tools_errors": 0,
                                       "delegations": 0, "processed_by_agents": set()}
        return stats

    @property
    def start_time(self) -> datetime | None:
        """When the task's last run started (None before it ran)."""
        value: datetime | None = self._stats()["start_time"]
        return value

    @property
    def end_time(self) -> datetime | None:
        """When the task's last run produced its final output."""
        value: datetime | None = self._stats()["end_time"]
        return value

    @property
    def execution_duration(self) -> float | None:
        """Seconds from ``start_time`` to ``end_time`` (None until the task has run), as CrewAI's."""
        stats = self._stats()
        if not stats["start_time"] or not stats["end_time"]:
            return None
        return float((stats["end_time"] - stats["start_time"]).total_seconds())

    @property
    def tools_errors(self) -> int:
        """Tool failures in the task's work, over its runs."""
        return int(self._stats()["tools_errors"])

    @property
    def delegations(self) -> int:
        """Delegations and questions to coworkers the task's agent made, over its runs."""
        return int(self._stats()["delegations"])

    @property
    def processed_by_agents(self) -> set[str]:
        """The coworker roles the task was delegated to (CrewAI's ``processed_by_agents``)."""
        found: set[str] = self._stats()["processed_by_agents"]
        return found

    def increment_tools_errors(self) -> None:
        """Count one more tool error."""
        self._stats()["tools_errors"] += 1

    def increment_delegations(self, agent_name: str | None) -> None:
        """Count one more delegation, to ``agent_name`` when given."""
        stats = self._stats()
        if agent_name:
            stats["processed_by_agents"].add(agent_name)
        stats["delegations"] += 1

    def record_times(self, start: datetime | None, end: datetime) -> None:
        """Set the last run's start and end (the engine calls it when the output is final)."""
        stats = self._stats()
        stats["start_time"], stats["end_time"] = start, end
