"""CrewAI's ``CheckpointConfig`` (``crewai.state``), served by crewgraph's checkpoint store.

``Crew(checkpoint=CheckpointConfig(location=...))`` checkpoints into the store
the provider places (see :mod:`crewgraph.state.provider`);
``kickoff(from_checkpoint=CheckpointConfig(restore_from=...))``,
``Crew.from_checkpoint(config)`` and ``Crew.fork(config, branch)`` resume or
fork a run of it. ``restore_from`` names the run: its run id (what
``crewgraph checkpoints list`` shows and errors print), ``<location>/<run id>``,
or a location alone (its latest run of this crew).

crewgraph saves every finished node (each task, each flow method), so the
CrewAI events that mean "after a task / method / kickoff" are what it does
already; finer ones (each LLM call, each tool call) are refused rather than
silently treated as coarser. ``max_checkpoints`` keeps the newest N runs of
the same crew (crewgraph keeps one record per run, not one file per event).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from crewgraph.state.provider import JsonProvider, SqliteProvider

if TYPE_CHECKING:
    from crewgraph.checkpoint.config import CheckpointConfig as StoreConfig

__all__ = ["SUPPORTED_EVENTS", "CheckpointConfig", "CheckpointEventType"]

CheckpointEventType = Literal[
    "task_started", "task_completed", "task_failed", "task_evaluation",
    "crew_kickoff_started", "crew_kickoff_completed", "crew_kickoff_failed",
    "flow_started", "flow_finished", "flow_paused",
    "method_execution_started", "method_execution_finished", "method_execution_failed",
    "human_feedback_requested", "human_feedback_received", "flow_input_requested", "flow_input_received",
    "agent_execution_started", "agent_execution_completed", "agent_execution_error",
    "lite_agent_execution_started", "lite_agent_execution_completed", "lite_agent_execution_error",
    "llm_call_started", "llm_call_completed", "llm_call_failed",
    "tool_usage_started", "tool_usage_finished", "tool_usage_error",
    "*",
]
"""The CrewAI event names ``on_events`` may hold (its most used ones)."""

SUPPORTED_EVENTS = frozenset({
    "task_completed", "task_failed", "crew_kickoff_completed", "crew_kickoff_failed",
    "method_execution_finished", "method_execution_failed", "flow_finished", "flow_paused",
    "agent_execution_completed", "lite_agent_execution_completed", "human_feedback_requested",
})
"""Events at which crewgraph's store already holds a checkpoint (every finished node is saved)."""


class CheckpointConfig(BaseModel):
    """Where checkpoints go and which one to restore (CrewAI's fields)."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    location: str = "./.checkpoints"
    on_events: list[str] = Field(default_factory=lambda: ["task_completed"])
    provider: JsonProvider | SqliteProvider = Field(default_factory=JsonProvider)
    max_checkpoints: int | None = Field(default=None, ge=1)
    restore_from: Path | str | None = None

    @field_validator("on_events")
    @classmethod
    def _supported(cls, value: list[str]) -> list[str]:
        finer = [e for e in value if e not in SUPPORTED_EVENTS]
        if finer:
            raise ValueError(
                f"on_events {finer} are not supported: crewgraph checkpoints every finished task and "
                f"flow method (one of {sorted(SUPPORTED_EVENTS)}), not finer steps"
            )
        return value

    @property
    def trigger_all(self) -> bool:
        return "*" in self.on_events

    @property
    def trigger_events(self) -> set[str]:
        return set(self.on_events)

    @property
    def database(self) -> Path:
        """The checkpoint store this config points at."""
        return self.provider.database(self.location)

    def restore_run_id(self) -> str | None:
        """The run ``restore_from`` names (None: none, or a location meaning its latest run)."""
        if self.restore_from is None:
            return None
        text = str(self.restore_from).strip()
        if not text:
            raise ValueError("CheckpointConfig(restore_from=...) must not be empty")
        path = Path(text).expanduser()
        if path == self.database or path == Path(self.location).expanduser() or path.is_dir():
            return None  # a location: its latest run
        if path.suffix == ".db" and path.is_file():
            return None
        return path.name  # "<run id>" or "<location>/<run id>"

    def restore_database(self) -> Path:
        """The store holding the run ``restore_from`` names."""
        if self.restore_from is None:
            return self.database
        path = Path(str(self.restore_from)).expanduser()
        if path.suffix == ".db" and path.is_file():
            return path
        if path.is_dir():
            return self.provider.database(path)
        if path.parent != Path(".") and str(path.parent) not in ("", "."):
            return self.provider.database(path.parent)
        return self.database

    def to_store_config(self, **changes: Any) -> StoreConfig:
        """crewgraph's store settings for this config (the same SQLite store either way)."""
        from crewgraph.checkpoint.config import CheckpointConfig as StoreConfig

        restoring = self.restore_from is not None
        settings: dict[str, Any] = {
            "path": self.restore_database() if restoring else self.database,
            "run_id": self.restore_run_id(),
            "keep_last": self.max_checkpoints,
        }
        settings.update(changes)
        return StoreConfig(**settings)
