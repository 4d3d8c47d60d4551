"""The readable live log ``verbose=True`` prints, built only on bus events (rich)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from crewgraph.events.base import BaseEvent
from crewgraph.events.bus import CrewGraphEventsBus, crewgraph_event_bus
from crewgraph.events.crew_events import (
    CrewKickoffCompletedEvent,
    CrewKickoffFailedEvent,
    CrewKickoffStartedEvent,
    TaskCompletedEvent,
    TaskFailedEvent,
    TaskStartedEvent,
)
from crewgraph.events.guardrail_events import GuardrailCompletedEvent
from crewgraph.events.node_events import NodeRetriedEvent
from crewgraph.events.tool_events import ToolFailureDetectedEvent, ToolUsageFinishedEvent

__all__ = ["ConsoleListener"]


def _short(text: Any, limit: int = 400) -> str:
    """``text`` cut to ``limit`` and escaped for rich: a hint like ``pip install 'crewgraph[tools]'``
    must print its ``[tools]``, not lose it as a markup tag."""
    from rich.markup import escape

    s = str(text or "").strip()
    return escape(s if len(s) <= limit else s[: limit - 3] + "...")


def _name(text: Any) -> str:
    """A name (task, role, crew) on one line and escaped: YAML ``>`` roles end with a line break."""
    from rich.markup import escape

    return escape(" ".join(str(text or "").split()))


_silence_lock = threading.Lock()
_silence_depth = 0


@contextlib.contextmanager
def silenced() -> Iterator[None]:
    """No ConsoleListener prints inside the block, in any thread (``crewgraph ... -q``: the crews a
    flow starts are verbose on their own, and ``-q`` must silence them too)."""
    global _silence_depth
    with _silence_lock:
        _silence_depth += 1
    try:
        yield
    finally:
        with _silence_lock:
            _silence_depth -= 1


class ConsoleListener:
    """Prints one run's progress; ``close()`` unregisters. ``run_id=None`` follows every run."""

    def __init__(self, run_id: str | None = None, bus: CrewGraphEventsBus | None = None, console: Any = None):
        from rich.console import Console

        self.run_id = run_id
        self.bus = bus or crewgraph_event_bus
        # stderr: the log is about the run, stdout is for its answer (`crewgraph run > answer.md`).
        self.console = console or Console(stderr=True, highlight=False)
        self._handlers: list[tuple[type[BaseEvent], Any]] = []
        for event_type, fn in (
            (CrewKickoffStartedEvent, self._crew_started),
            (CrewKickoffCompletedEvent, self._crew_done),
            (CrewKickoffFailedEvent, self._crew_failed),
            (TaskStartedEvent, self._task_started),
            (TaskCompletedEvent, self._task_done),
            (TaskFailedEvent, self._task_failed),
            (ToolUsageFinishedEvent, self._tool_done),
            (ToolFailureDetectedEvent, self._tool_failure),
            (GuardrailCompletedEvent, self._guardrail),
            (NodeRetriedEvent, self._retried),
        ):
            handler = self._filtered(fn)
            self.bus.register_handler(event_type, handler)
            self._handlers.append((event_type, handler))

    def _filtered(self, fn: Any) -> Any:
        def handler(source: Any, event: BaseEvent) -> None:
            if self.run_id is None or event.run_id == self.run_id:
                fn(event)

        return handler

    def close(self) -> None:
        for event_type, handler in self._handlers:
            self.bus.off(event_type, handler)
        self._handlers.clear()

    def _p(self, text: str) -> None:
        if _silence_depth:
            return
        self.console.print(text, soft_wrap=True)

    def _crew_started(self, e: CrewKickoffStartedEvent) -> None:
        self._p(f"[bold cyan]🚀 Crew {_name(e.crew_name)} started[/] [dim](run {e.run_id})[/]")

    def _crew_done(self, e: CrewKickoffCompletedEvent) -> None:
        self._p(
            f"[bold green]✅ Crew {_name(e.crew_name)} completed[/] in {e.duration_ms / 1000:.2f}s, "
            f"{e.total_tokens} tokens"
        )

    def _crew_failed(self, e: CrewKickoffFailedEvent) -> None:
        self._p(f"[bold red]❌ Crew {_name(e.crew_name)} failed:[/] {_short(e.error)}")

    def _task_started(self, e: TaskStartedEvent) -> None:
        self._p(f"[bold]📋 Task[/] {_name(e.task_name)} [dim]— agent: {_name(e.agent_role)}[/]")

    def _task_done(self, e: TaskCompletedEvent) -> None:
        self._p(f"[green]✔ Task done[/] {_name(e.task_name)}\n[dim]{_short(e.output)}[/]")

    def _task_failed(self, e: TaskFailedEvent) -> None:
        self._p(f"[red]✘ Task failed[/] {_name(e.task_name)}: {_short(e.error)}")

    def _tool_done(self, e: ToolUsageFinishedEvent) -> None:
        mark = "[red]✘[/]" if e.failure is not None else ("[blue]↺[/]" if e.from_cache else "[green]🔧[/]")
        self._p(f"  {mark} {_name(e.tool_name)}({_short(e.tool_args, 120)}) → {_short(e.output, 160)}")

    def _tool_failure(self, e: ToolFailureDetectedEvent) -> None:
        msg = getattr(e.failure, "message", e.failure)
        self._p(f"  [yellow]⚠ tool {_name(e.tool_name)} failed ({e.policy}):[/] {_short(msg, 200)}")

    def _guardrail(self, e: GuardrailCompletedEvent) -> None:
        if e.success:
            self._p(f"  [green]🛡 guardrail {_name(e.guardrail)} passed[/]")
        else:
            self._p(f"  [yellow]🛡 guardrail {_name(e.guardrail)} rejected the answer:[/] {_short(e.error, 200)}")

    def _retried(self, e: NodeRetriedEvent) -> None:
        self._p(f"  [yellow]↻ retrying {_name(e.label)} (attempt {e.attempt}) in {e.wait_seconds:.1f}s:[/] {_short(e.error, 160)}")
