"""The progress display: elapsed time, tasks done of total, the model call being retried."""

from __future__ import annotations

import io

from rich.console import Console

from crewgraph.cli._progress import NodeProgress
from crewgraph.events.bus import CrewGraphEventsBus
from crewgraph.events.crew_events import TaskCompletedEvent
from crewgraph.events.llm_events import LLMCallRetryEvent
from crewgraph.events.node_events import NodeFinishedEvent, NodeStartedEvent


def _emit(bus: CrewGraphEventsBus, event: object) -> None:
    bus.emit(None, event).result(timeout=5)  # type: ignore[arg-type]


def test_status_line_and_retry_line() -> None:
    bus = CrewGraphEventsBus()
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=200)
    with NodeProgress(console, bus, total_tasks=2) as progress:
        _emit(bus, NodeStartedEvent(node_id="t1.agent", label="research_task", run_id="abc123"))
        _emit(bus, LLMCallRetryEvent(model="m", attempt=2, wait_seconds=4.2, error="HTTP 503 from x: busy",
                                     max_attempts=6, status_code=503))
        status = progress.status_text()
        assert "tasks 0/2" in status and "running[/] research_task" in status
        assert "LLM call retry 2/5 after HTTP 503, next in 4 s" in status
        assert progress.run_id == "abc123"  # what the Ctrl-C hint names
        _emit(bus, NodeFinishedEvent(node_id="t1.agent", label="research_task"))
        _emit(bus, TaskCompletedEvent(task_name="research_task"))
        status = progress.status_text()
        assert "tasks 1/2" in status and "retry" not in status
    printed = out.getvalue()
    assert "LLM call retry 2/5 after HTTP 503, next in 4 s" in printed  # no terminal: a line of its own
    assert "✔ research_task" in printed


def test_quiet_progress_prints_nothing_but_keeps_the_run_id() -> None:
    bus = CrewGraphEventsBus()
    out = io.StringIO()
    with NodeProgress(Console(file=out), bus, show=False) as progress:
        _emit(bus, NodeStartedEvent(node_id="n", label="n", run_id="r1"))
        _emit(bus, NodeFinishedEvent(node_id="n", label="n"))
    assert progress.run_id == "r1" and out.getvalue() == ""
