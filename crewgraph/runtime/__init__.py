"""The scheduler that runs any compiled graph (layer 4)."""

from crewgraph.runtime.scheduler import RunResult, Scheduler

__all__ = ["RunResult", "Scheduler"]
