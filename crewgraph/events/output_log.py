"""``Crew(output_log_file=...)``: a file logging each task's start, completion and failure.

As in CrewAI: ``True`` writes ``logs.txt`` in the working directory; a name
ending in ``.json`` keeps a JSON array of entries (read, appended, rewritten,
so the file stays valid JSON across kickoffs); any other name gets one text
line per entry. Each entry has a timestamp, the task's name and description,
the agent, the status (``started``/``completed``/``failed``) and, when done,
its output or error. Built only on bus events for one run, like the console log.
"""

from __future__ import annotations

import json
import threading
from datetime import datetime
from pathlib import Path
from typing import Any

from crewgraph.events.base import BaseEvent
from crewgraph.events.bus import CrewGraphEventsBus, crewgraph_event_bus
from crewgraph.events.crew_events import TaskCompletedEvent, TaskFailedEvent, TaskStartedEvent

__all__ = ["DEFAULT_LOG_FILE", "OutputLogListener", "log_path"]

DEFAULT_LOG_FILE = "logs.txt"


def log_path(setting: bool | str | None) -> Path | None:
    """Where ``output_log_file`` writes (None: no log)."""
    if setting is None or setting is False:
        return None
    if setting is True:
        return Path(DEFAULT_LOG_FILE)
    if not str(setting).strip():
        return None
    return Path(setting)


class OutputLogListener:
    """Appends one run's task events to ``path``; ``close()`` unregisters."""

    def __init__(self, path: Path, run_id: str, descriptions: dict[str, str] | None = None,
                 bus: CrewGraphEventsBus | None = None) -> None:
        self.path = path
        self.run_id = run_id
        self.descriptions = descriptions or {}
        self.bus = bus or crewgraph_event_bus
        self._lock = threading.Lock()
        if self.path.parent != Path():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handlers: list[tuple[type[BaseEvent], Any]] = [
            (TaskStartedEvent, self._on), (TaskCompletedEvent, self._on), (TaskFailedEvent, self._on)
        ]
        for event_type, fn in self._handlers:
            self.bus.register_handler(event_type, fn)

    def close(self) -> None:
        for event_type, fn in self._handlers:
            self.bus.off(event_type, fn)
        self._handlers = []

    def _on(self, source: Any, event: BaseEvent) -> None:
        if event.run_id != self.run_id:
            return
        name = getattr(event, "task_name", None) or ""
        entry: dict[str, Any] = {
            "timestamp": datetime.now().isoformat(timespec="seconds"),
            "task_name": name,
            "task": self.descriptions.get(name, name),
            "agent": getattr(event, "agent_role", None),
        }
        if isinstance(event, TaskStartedEvent):
            entry["status"] = "started"
        elif isinstance(event, TaskCompletedEvent):
            entry.update(status="completed", output=getattr(event.output, "raw", event.output))
        else:
            entry.update(status="failed", error=getattr(event, "error", ""))
        self.write(entry)

    def write(self, entry: dict[str, Any]) -> None:
        with self._lock:
            if self.path.suffix.lower() == ".json":
                entries: list[Any] = []
                if self.path.exists() and self.path.stat().st_size:
                    try:
                        loaded = json.loads(self.path.read_text(encoding="utf-8"))
                        entries = loaded if isinstance(loaded, list) else [loaded]
                    except json.JSONDecodeError:  # not ours: keep it, start a new array beside it
                        self.path.rename(self.path.with_suffix(".json.bak"))
                entries.append(entry)
                self.path.write_text(json.dumps(entries, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
            else:
                fields = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False, default=str)}"
                                   for k, v in entry.items() if k != "timestamp" and v is not None)
                with self.path.open("a", encoding="utf-8") as fh:
                    fh.write(f"{entry['timestamp']}: {fields}\n")
