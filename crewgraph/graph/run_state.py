"""Run-wide services shared by the nodes of one run."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RunState"]


@dataclass
class RunState:
    """Mutable, run-scoped services. Nodes read and write them under ``lock``.

    - ``tool_cache``: (tool name, canonical args JSON) -> cached agent-facing result.
    - ``limiters``: rate limiter objects by key (``agent:<id>``, ``crew``...).
    - ``extras``: anything else a facade wants to hand its nodes (input
      provider for human input, delegation targets...).
    """

    tool_cache: dict[tuple[str, str], Any] = field(default_factory=dict)
    limiters: dict[str, Any] = field(default_factory=dict)
    extras: dict[str, Any] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
