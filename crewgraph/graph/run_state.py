"""Run-wide services shared by the nodes of one run."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crewgraph.events.llm_events import LLMStreamChunkEvent

__all__ = ["RunState"]


@dataclass
class RunState:
    """Mutable, run-scoped services. Nodes read and write them under ``lock``.

    - ``tool_cache``: (tool name, canonical args JSON) -> cached agent-facing result.
    - ``limiters``: rate limiter objects by key (``agent:<id>``, ``crew``...).
    - ``extras``: anything else a facade wants to hand its nodes (input
      provider for human input, delegation targets...).
    - ``stream``: set by a streaming kickoff; agent steps then ask their model
      to stream and hand it every delta. None (the default) means no step pays
      for streaming.
    """

    tool_cache: dict[tuple[str, str], Any] = field(default_factory=dict)
    limiters: dict[str, Any] = field(default_factory=dict)
    extras: dict[str, Any] = field(default_factory=dict)
    stream: Callable[[LLMStreamChunkEvent], None] | None = None
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
