"""The ``crewgraph run`` progress display: one line per graph node, from node events.

It listens to the scheduler's node events (not crew events), so the same
display serves crews and flows, shows tool calls, retries and nodes restored
from a checkpoint, and needs nothing from the facades. On a terminal a status
line under them says how long the run has taken, how many tasks are done (of
how many, for a crew), the nodes running now and the model call being retried
("LLM call retry 2/17 after HTTP 503, next in 4 s"); elsewhere (CI, pipes) only
finished/failed/retried lines are printed, so logs stay readable. It also
remembers the run id, for the resume hint of an interrupted run.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

from crewgraph.events.base import BaseEvent
from crewgraph.events.bus import CrewGraphEventsBus, crewgraph_event_bus
from crewgraph.events.crew_events import TaskCompletedEvent, TaskFailedEvent
from crewgraph.events.llm_events import LLMCallRetryEvent
from crewgraph.events.node_events import (
    NodeFailedEvent,
    NodeFinishedEvent,
    NodeRetriedEvent,
    NodeSkippedEvent,
    NodeStartedEvent,
)

__all__ = ["NodeProgress"]


def _short(text: Any, limit: int = 120) -> str:
    s = " ".join(str(text or "").split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


class NodeProgress:
    """Prints node progress to ``console`` until :meth:`close` (use as a context manager)."""

    def __init__(
        self, console: Any, bus: CrewGraphEventsBus | None = None, *, total_tasks: int | None = None,
        show: bool = True, inputs: dict[str, Any] | None = None,
    ) -> None:
        self.console = console
        self.inputs = dict(inputs or {})  # {placeholders} in labels are shown filled in
        self.bus = bus or crewgraph_event_bus
        self.show = show  # False: only watch (run id) and print nothing (``--quiet``)
        self.finished = 0
        self.failed = 0
        self.warnings: list[str] = []  # "label: warning", for the run summary
        self.tasks_done = 0
        self.total_tasks = total_tasks
        self.run_id: str | None = None
        self.retry: str | None = None  # the model call being retried now, for the status line
        self._started_at = time.monotonic()
        self._running: dict[str, str] = {}
        self._lock = threading.Lock()
        self._live: Any = None
        self._handlers: list[tuple[type[BaseEvent], Any]] = []
        self._guard_mark = 0  # handlers found blocking the loop after it belong to this run

    # lifecycle -----------------------------------------------------------
    def __enter__(self) -> NodeProgress:
        self._started_at = time.monotonic()
        self._guard_mark = self.bus.loop_guard.mark()
        if self.show and self.console.is_terminal:
            from rich.live import Live

            self._live = Live(_Status(self), console=self.console, transient=True, refresh_per_second=8)
            self._live.start()
        watched: list[tuple[type[BaseEvent], Any]] = [(NodeStartedEvent, self._started)]
        if self.show:
            watched += [
                (NodeFinishedEvent, self._finished),
                (NodeFailedEvent, self._failed),
                (NodeRetriedEvent, self._retried),
                (NodeSkippedEvent, self._skipped),
                (TaskCompletedEvent, self._task_done),
                (TaskFailedEvent, self._task_done),
                (LLMCallRetryEvent, self._llm_retry),
            ]
        for event_type, fn in watched:
            handler = self._guarded(fn)
            self.bus.register_handler(event_type, handler)
            self._handlers.append((event_type, handler))
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def suspended(self) -> Iterator[None]:
        """Stop the spinner while a human types: it redraws its line several times a second
        (over the prompt) and redirects the terminal's output while it runs."""
        live = self._live
        if live is None:
            yield
            return
        live.stop()
        try:
            yield
        finally:
            if self._live is live:
                live.start()

    def close(self) -> None:
        for event_type, handler in self._handlers:
            self.bus.off(event_type, handler)
        self._handlers.clear()
        for blocked in self.bus.loop_guard.since(self._guard_mark):  # for the run summary
            self.warnings.append(blocked.message())
        self._guard_mark = self.bus.loop_guard.mark()
        if self._live is not None:
            self._live.stop()
            self._live = None

    # rendering -----------------------------------------------------------
    def _guarded(self, fn: Any) -> Any:
        def handler(source: Any, event: Any) -> None:
            with self._lock:
                if self.run_id is None and getattr(event, "run_id", None):
                    self.run_id = event.run_id
                fn(event)

        return handler

    def status_text(self) -> str:
        """The status line: elapsed time, tasks done, what runs now, the current retry."""
        parts = [f"{time.monotonic() - self._started_at:.0f}s"]
        if self.total_tasks:
            parts.append(f"tasks {self.tasks_done}/{self.total_tasks}")
        elif self.tasks_done:
            parts.append(f"tasks done {self.tasks_done}")
        with self._lock:
            running = list(self._running.values())
            retry = self.retry
        if running:
            more = f" +{len(running) - 3}" if len(running) > 3 else ""
            parts.append(f"[cyan]running[/] {', '.join(running[:3])}{more}")
        else:
            parts.append("[dim]working...[/]" if self.finished else "[dim]starting...[/]")
        if retry:
            parts.append(f"[yellow]{retry}[/]")
        return " · ".join(parts)

    def _print(self, text: str) -> None:
        self.console.print(text, highlight=False, soft_wrap=True)

    def _label(self, event: Any) -> str:
        """The node's label on one line, its ``{placeholders}`` filled with the run's inputs."""
        from rich.markup import escape

        from crewgraph._internal.interpolate import interpolate

        text = interpolate(str(event.label or event.node_id or "?"), self.inputs)
        return escape(" ".join(text.split()))

    @staticmethod
    def _kind(event: Any) -> str:
        return f"[dim]{event.node_kind}[/]" if event.node_kind else ""

    # handlers ------------------------------------------------------------
    def _started(self, e: NodeStartedEvent) -> None:
        if self.show:
            self._running[e.node_id or "?"] = self._label(e)

    def _task_done(self, e: Any) -> None:
        self.tasks_done += 1

    def _llm_retry(self, e: LLMCallRetryEvent) -> None:
        from rich.markup import escape

        of = f"/{e.max_attempts - 1}" if e.max_attempts else ""  # retries, not attempts
        cause = f"HTTP {e.status_code}" if e.status_code else _short(e.error, 60)
        self.retry = escape(f"LLM call retry {e.attempt}{of} after {cause}, next in {e.wait_seconds:.0f} s")
        if self._live is None:  # no status line: say it in the log
            self._print(f"  [yellow]↻[/] {self.retry}")

    def _finished(self, e: NodeFinishedEvent) -> None:
        self._running.pop(e.node_id or "?", None)
        self.retry = None
        self.finished += 1
        if e.from_checkpoint:
            self._print(f"  [blue]↺[/] {self._label(e)} {self._kind(e)} [dim](restored from checkpoint)[/]")
            return
        tokens = f", {e.total_tokens} tokens" if e.total_tokens else ""
        if e.warning:
            from rich.markup import escape

            self.warnings.append(f"{e.label or e.node_id}: {e.warning}")
            self._print(f"  [yellow]⚠[/] {self._label(e)} {self._kind(e)} [dim]{e.duration_ms / 1000:.2f}s{tokens}[/] "
                        f"[yellow]{escape(_short(e.warning, 200))}[/]")
            return
        if e.handled_error:  # a tool call that failed under its policy: the model read the failure
            from rich.markup import escape

            self._print(f"  [yellow]⚠[/] {self._label(e)} {self._kind(e)} [dim]{e.duration_ms / 1000:.2f}s[/] "
                        f"[yellow]failed (handled, the agent was told): {escape(_short(e.handled_error, 200))}[/]")
            return
        self._print(f"  [green]✔[/] {self._label(e)} {self._kind(e)} [dim]{e.duration_ms / 1000:.2f}s{tokens}[/]")

    def _failed(self, e: NodeFailedEvent) -> None:
        from rich.markup import escape

        self._running.pop(e.node_id or "?", None)
        self.failed += 1
        self._print(f"  [red]✘[/] {self._label(e)} {self._kind(e)} [red]{escape(_short(e.error))}[/]")

    def _retried(self, e: NodeRetriedEvent) -> None:
        from rich.markup import escape

        self._print(
            f"  [yellow]↻[/] {self._label(e)} retry {e.attempt} in {e.wait_seconds:.1f}s: "
            f"[dim]{escape(_short(e.error))}[/]"
        )

    def _skipped(self, e: NodeSkippedEvent) -> None:
        from rich.markup import escape

        self._running.pop(e.node_id or "?", None)
        self._print(f"  [dim]- {self._label(e)} skipped: {escape(_short(e.reason))}[/]")


class _Status:
    """What rich's Live redraws 8 times a second: a spinner with the progress's status line,
    recomputed on each redraw so the elapsed time ticks between events."""

    def __init__(self, progress: NodeProgress) -> None:
        self.progress = progress
        from rich.spinner import Spinner

        self.spinner = Spinner("dots")

    def __rich__(self) -> Any:
        self.spinner.update(text=self.progress.status_text())
        return self.spinner
