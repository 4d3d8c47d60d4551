"""The ``crewgraph run`` progress display: one line per graph node, from node events.

It listens to the scheduler's node events (not crew events), so the same
display serves crews and flows, shows tool calls, retries and nodes restored
from a checkpoint, and needs nothing from the facades. On a terminal the
nodes currently running are shown under a spinner; elsewhere (CI, pipes)
only finished/failed/retried lines are printed, so logs stay readable.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from crewgraph.events.base import BaseEvent
from crewgraph.events.bus import CrewGraphEventsBus, crewgraph_event_bus
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

    def __init__(self, console: Any, bus: CrewGraphEventsBus | None = None) -> None:
        self.console = console
        self.bus = bus or crewgraph_event_bus
        self.finished = 0
        self.failed = 0
        self._running: dict[str, str] = {}
        self._lock = threading.Lock()
        self._live: Any = None
        self._handlers: list[tuple[type[BaseEvent], Any]] = []

    # lifecycle -----------------------------------------------------------
    def __enter__(self) -> NodeProgress:
        if self.console.is_terminal:
            from rich.live import Live

            self._live = Live(self._status(), console=self.console, transient=True, refresh_per_second=8)
            self._live.start()
        for event_type, fn in (
            (NodeStartedEvent, self._started),
            (NodeFinishedEvent, self._finished),
            (NodeFailedEvent, self._failed),
            (NodeRetriedEvent, self._retried),
            (NodeSkippedEvent, self._skipped),
        ):
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
        if self._live is not None:
            self._live.stop()
            self._live = None

    # rendering -----------------------------------------------------------
    def _guarded(self, fn: Any) -> Any:
        def handler(source: Any, event: Any) -> None:
            with self._lock:
                fn(event)
                if self._live is not None:
                    self._live.update(self._status())

        return handler

    def _status(self) -> Any:
        from rich.spinner import Spinner

        if not self._running:
            return Spinner("dots", text="[dim]working...[/]" if self.finished else "[dim]starting...[/]")
        names = ", ".join(list(self._running.values())[:4])
        more = f" +{len(self._running) - 4}" if len(self._running) > 4 else ""
        return Spinner("dots", text=f"[cyan]running[/] {names}{more}")

    def _print(self, text: str) -> None:
        self.console.print(text, highlight=False, soft_wrap=True)

    @staticmethod
    def _label(event: Any) -> str:
        from rich.markup import escape

        return escape(event.label or event.node_id or "?")

    @staticmethod
    def _kind(event: Any) -> str:
        return f"[dim]{event.node_kind}[/]" if event.node_kind else ""

    # handlers ------------------------------------------------------------
    def _started(self, e: NodeStartedEvent) -> None:
        self._running[e.node_id or "?"] = self._label(e)

    def _finished(self, e: NodeFinishedEvent) -> None:
        self._running.pop(e.node_id or "?", None)
        self.finished += 1
        if e.from_checkpoint:
            self._print(f"  [blue]↺[/] {self._label(e)} {self._kind(e)} [dim](restored from checkpoint)[/]")
            return
        tokens = f", {e.total_tokens} tokens" if e.total_tokens else ""
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
