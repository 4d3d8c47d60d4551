"""How a crew orders its tasks."""

from __future__ import annotations

from enum import Enum

__all__ = ["Process"]


class Process(str, Enum):
    """``sequential`` and ``hierarchical`` keep CrewAI's meaning; ``parallel`` is crewgraph's:
    only declared ``context`` orders tasks, so independent tasks run at the same time."""

    sequential = "sequential"
    hierarchical = "hierarchical"
    parallel = "parallel"
