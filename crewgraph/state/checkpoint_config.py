"""CrewAI's ``CheckpointConfig`` (``crewai.state``), served by crewgraph's checkpoint store.

``Crew(checkpoint=CheckpointConfig(location=...))`` checkpoints into the store
the provider places (see :mod:`crewgraph.state.provider`);
``kickoff(from_checkpoint=CheckpointConfig(restore_from=...))``,
``Crew.from_checkpoint(config)`` and ``Crew.fork(config, branch)`` resume or
fork a run of it. ``restore_from`` names the run: one of CrewAI's checkpoints
(a ``.json`` file the JsonProvider wrote, or ``<database>#<checkpoint id>``),
its run id (what ``crewgraph checkpoints list`` shows and errors print),
``<location>/<run id>``, or a location alone (its latest run of this crew).
The run's CrewAI checkpoints are written at the ``on_events`` triggers by
:mod:`crewgraph.state.writer`.

crewgraph saves every finished node (each task, each flow method), so the
CrewAI events that mean "after a task / method / kickoff" are what it does
already; finer ones (each LLM call, each tool call) are refused rather than
silently treated as coarser. ``max_checkpoints`` keeps the newest N CrewAI
checkpoints of a branch (the provider prunes after each write) and the newest
N runs of the same crew in the store.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from crewgraph.state.provider import JsonProvider, SqliteProvider

if TYPE_CHECKING:
    from crewgraph.checkpoint.config import CheckpointConfig as StoreConfig

__all__ = ["SUPPORTED_EVENTS", "CheckpointConfig", "CheckpointEventType", "apply_checkpoint"]

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
    _fork_branch: str | None = PrivateAttr(default=None)
    _document: dict[str, Any] | None = PrivateAttr(default=None)
    _lineage: tuple[str | None, str] | None = PrivateAttr(default=None)

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

    def checkpoint_document(self) -> dict[str, Any] | None:
        """The CrewAI checkpoint ``restore_from`` names (a JSON file, or ``<database>#<id>``), read
        once; None when it names a run id or a location instead."""
        if self._document is not None or self.restore_from is None:
            return self._document
        import json

        from crewgraph.state.provider import detect_provider

        text = str(self.restore_from).strip()
        path, sep, _ = text.rpartition("#")
        is_row = bool(sep) and Path(path).expanduser().is_file()
        is_file = Path(text).expanduser().suffix == ".json" and Path(text).expanduser().is_file()
        if not (is_row or is_file):
            if Path(text).expanduser().suffix == ".json":
                raise ValueError(f"CheckpointConfig(restore_from={text!r}): no such checkpoint file")
            return None
        raw = detect_provider(text).from_checkpoint(text)
        try:
            document = json.loads(raw)
        except ValueError as exc:
            raise ValueError(f"checkpoint {text!r} is not JSON: {exc}") from None
        run = document.get("crewgraph") if isinstance(document, dict) else None
        if not isinstance(run, dict) or not run.get("run_id") or not run.get("store"):
            raise ValueError(f"checkpoint {text!r} names no crewgraph run (it was not written by crewgraph)")
        self._document = document
        return document

    def write_location(self) -> str:
        """Where a run of this config writes CrewAI's checkpoints: ``location``; when it is left
        unset on a config that restores a checkpoint, the location that checkpoint is in."""
        document = self.checkpoint_document()
        if document is None or "location" in self.model_fields_set:
            return self.location
        store = Path(str(document["crewgraph"]["store"]))
        return str(store if isinstance(self.provider, SqliteProvider) else store.parent)

    def lineage(self) -> tuple[str | None, str]:
        """(parent checkpoint id, branch) of the next checkpoint a run of this config writes."""
        if self._lineage is not None:
            return self._lineage
        document = self.checkpoint_document()
        parent = None
        branch = "main"
        if document is not None:
            parent = self.provider.extract_id(str(self.restore_from))
            branch = str(document.get("branch") or "main")
        return parent, self._fork_branch or branch

    def continuing(self) -> CheckpointConfig:
        """A config for *new* runs that carry on from the checkpoint ``restore_from`` names: no
        restore, the same location, the next checkpoint parented on that one."""
        lineage = self.lineage()
        copy = self.model_copy(update={"restore_from": None, "location": self.write_location()})
        copy._lineage = lineage
        return copy

    def forked(self, branch: str | None) -> CheckpointConfig:
        """A copy whose run writes its checkpoints on branch ``branch`` (a unique one when None)."""
        import uuid

        copy = self.model_copy()
        copy._document = self._document
        parent, _ = self.lineage()
        copy._fork_branch = branch or (f"fork/{parent}_{uuid.uuid4().hex[:6]}" if parent
                                       else f"fork/{uuid.uuid4().hex[:8]}")
        return copy

    def restore_run_id(self) -> str | None:
        """The run ``restore_from`` names (None: none, or a location meaning its latest run)."""
        if self.restore_from is None:
            return None
        document = self.checkpoint_document()
        if document is not None:
            return str(document["crewgraph"]["run_id"])
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
        document = self.checkpoint_document()
        if document is not None:
            return Path(str(document["crewgraph"]["store"]))
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
            "crewai": self,
        }
        settings.update(changes)
        return StoreConfig(**settings)


def apply_checkpoint(instance: Any, from_checkpoint: CheckpointConfig | None) -> Any:
    """What a kickoff with ``from_checkpoint`` runs: ``instance`` itself when None; the crew,
    flow or agent restored from ``restore_from`` when it is set; else ``instance`` with the
    config as its ``checkpoint`` (checkpointing this run)."""
    if from_checkpoint is None:
        return instance
    if not isinstance(from_checkpoint, CheckpointConfig):
        raise TypeError(f"from_checkpoint must be a crewgraph.state.CheckpointConfig, got "
                        f"{type(from_checkpoint).__name__}")
    if from_checkpoint.restore_from is not None:
        return type(instance).from_checkpoint(from_checkpoint)
    copy = getattr(instance, "model_copy", None)
    if callable(copy):
        return copy(update={"checkpoint": from_checkpoint})
    instance.checkpoint = from_checkpoint
    return instance
