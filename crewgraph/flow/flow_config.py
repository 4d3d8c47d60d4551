"""CrewAI's ``flow_config``: process-wide defaults for flows, set once at startup.

``flow_config.input_provider`` answers ``Flow.ask`` for every flow without its
own ``input_provider``; ``flow_config.hitl_provider`` collects ``@human_feedback``
for every decorator without its own ``provider``. Both default to None (the
console).
"""

from __future__ import annotations

from typing import Any

__all__ = ["FlowConfig", "flow_config"]


class FlowConfig:
    """Process-wide flow settings (one instance: :data:`flow_config`)."""

    def __init__(self) -> None:
        self.input_provider: Any = None
        """Who answers ``Flow.ask`` when the flow names no ``input_provider`` (None: console)."""
        self.hitl_provider: Any = None
        """Who collects ``@human_feedback`` when the decorator names no ``provider`` (None: console)."""

    def __repr__(self) -> str:
        return f"FlowConfig(input_provider={self.input_provider!r}, hitl_provider={self.hitl_provider!r})"


flow_config = FlowConfig()
