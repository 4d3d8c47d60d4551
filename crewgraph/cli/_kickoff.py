"""What ``run``, ``replay`` and ``checkpoints resume`` share: checkpoint setup, the kickoff
with its progress display, and printing the result.

Progress and summaries go to stderr and the result to stdout, so
``crewgraph run > answer.md`` captures only the answer.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from crewgraph.cli._errors import UserError, describe
from crewgraph.cli._options import store_location
from crewgraph.cli._target import Target

__all__ = ["Interrupted", "TerminalFeedback", "configure_checkpoint", "err_console", "print_result", "resume_hint", "run_target"]


def err_console() -> Any:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def configure_checkpoint(target: Target, enabled: bool, db: str | Path | None) -> Any:
    """Make the crew checkpoint to ``db`` (its own path, else the default) and return the
    CheckpointConfig, or switch checkpointing off and return None."""
    from crewgraph.checkpoint import CheckpointConfig

    obj = target.obj
    if not hasattr(obj, "checkpoint"):
        if db is not None:
            raise UserError(f"{target.label} does not support checkpoints (--db given)")
        return None
    if not enabled:
        obj.checkpoint = None
        return None
    try:
        current = CheckpointConfig.coerce(obj.checkpoint)
    except TypeError as exc:
        raise UserError(f"{target.label}: {exc}") from None
    location = store_location(db)
    if current is None:
        current = CheckpointConfig() if location is None else CheckpointConfig(path=location)
    elif isinstance(location, str):  # --db postgresql://...
        current = current.model_copy(update={"url": location})
    elif location is not None:
        current = current.model_copy(update={"path": location, "url": None})
    obj.checkpoint = current
    return current


def _silence(target: Target) -> None:
    """``--quiet`` also turns off the crew's own verbose log."""
    obj = target.obj
    if target.kind == "crew":
        obj.verbose = False
        for agent in obj.agents:
            agent.verbose = False
    elif hasattr(obj, "verbose"):
        with contextlib.suppress(Exception):
            obj.verbose = False


class Interrupted(UserError):
    """Ctrl-C during a run: exit 130 (as a shell reports SIGINT), with the resume hint."""

    exit_code = 130


def resume_hint(run_id: str, what: str) -> str:
    """The hint a failed or interrupted checkpointed run ends with."""
    return f"[run {run_id} is checkpointed: {what} `crewgraph checkpoints resume {run_id}`]"


def run_target(
    target: Target, inputs: dict[str, Any], *, quiet: bool, from_checkpoint: str | None = None,
    call: Callable[[dict[str, Any]], Any] | None = None,
) -> Any:
    """Kick the crew or flow off, showing node progress unless ``quiet``.

    ``call(inputs)`` makes the kickoff when given (the project's own ``kickoff`` call,
    see :mod:`crewgraph.cli._entry`); else ``target.obj.kickoff(...)``.
    """
    console = err_console()
    if quiet:
        _silence(target)
    else:
        action = f"Resuming run {from_checkpoint} of" if from_checkpoint else "Running"
        from rich.markup import escape

        shown = escape(", ".join(f"{k}={v!r}" for k, v in inputs.items()))
        console.print(f"[bold cyan]{action} {target.kind} {escape(repr(target.name))}[/] [dim]({escape(target.label)})[/]")
        if shown:
            console.print(f"[dim]inputs: {shown}[/]")
    from crewgraph.cli._progress import NodeProgress

    total = len(target.obj.tasks) if target.kind == "crew" else None
    progress = NodeProgress(console, total_tasks=total, show=not quiet, inputs=inputs)
    _ask_on_the_terminal(target, None if quiet else progress)
    start = time.perf_counter()
    try:
        from crewgraph.events.console import silenced

        with progress, (silenced() if quiet else contextlib.nullcontext()):
            if call is not None:
                result = call(inputs)
            elif target.kind == "crew" or from_checkpoint is not None:
                result = target.obj.kickoff(inputs=inputs, from_checkpoint=from_checkpoint)
            else:
                result = target.obj.kickoff(inputs=inputs)
            result = _drain_stream(result)
    except KeyboardInterrupt:
        run_id = progress.run_id
        if run_id and getattr(target.obj, "checkpoint", None):
            raise Interrupted(f"interrupted {resume_hint(run_id, 'resume it with')}") from None
        raise Interrupted("interrupted") from None
    except Exception as exc:
        run_id = getattr(exc, "run_id", None)
        if run_id and getattr(target.obj, "checkpoint", None):
            raise UserError(f"{describe(exc)} {resume_hint(run_id, 'fix the cause, then')}") from exc
        raise
    if not quiet:
        _summary(console, target, result, time.perf_counter() - start, progress.warnings)
    return result


class TerminalFeedback:
    """The CLI's input provider for ``human_input`` tasks.

    Unlike the library default (``input()``), the prompt goes to stderr, so
    ``crewgraph run > answer.md`` still captures only the answer; the progress
    spinner pauses while the human types; and the end of input (stdin closed or
    redirected: CI, pipes, ``< /dev/null``) accepts the answer instead of failing
    the task, since nobody is there to give feedback.
    """

    def __init__(self, progress: Any = None) -> None:
        self.progress = progress

    def __call__(self, prompt: str) -> str:
        import sys

        pause = self.progress.suspended() if self.progress is not None else contextlib.nullcontext()
        with pause:
            sys.stderr.write(prompt)
            sys.stderr.flush()
            try:
                line = sys.stdin.readline()  # "" at end of input: accept the answer
            except (OSError, ValueError):  # no usable stdin at all
                line = ""
            if not line.endswith("\n"):
                sys.stderr.write("\n")  # nothing was typed: end the prompt's line
        return line.strip()


def _ask_on_the_terminal(target: Target, progress: Any) -> None:
    """Give a crew with ``human_input`` tasks the CLI's provider, unless it has its own."""
    obj = target.obj
    if target.kind != "crew" or getattr(obj, "input_provider", None) is not None:
        return
    if any(getattr(task, "human_input", False) for task in obj.tasks):
        obj.input_provider = TerminalFeedback(progress)


def _drain_stream(result: Any) -> Any:
    """A ``stream=True`` crew returns a stream: run it to the end (progress shows the nodes)."""
    from crewgraph.streaming import CrewStreamingOutput

    if not isinstance(result, CrewStreamingOutput):
        return result
    for _chunk in result:
        pass
    return result.result


def _summary(console: Any, target: Target, result: Any, seconds: float, warnings: list[str] | None = None) -> None:
    usage = getattr(result, "token_usage", None)
    tokens = f" · {usage.total_tokens} tokens" if usage is not None else ""
    run_id = getattr(result, "run_id", None)
    run = f" · run {run_id}" if run_id else ""
    from rich.markup import escape

    if getattr(result, "pending", False) is True:
        console.print(f"[bold yellow]⏸ {target.kind} {escape(repr(target.name))} paused for a review[/] "
                      f"after {seconds:.2f}s{tokens}{run}")
        return
    if warnings:  # something was missing: not a plain success
        count = f"{len(warnings)} warning{'s' if len(warnings) > 1 else ''}"
        console.print(f"[bold yellow]⚠ {target.kind} {escape(repr(target.name))} finished with {count}[/] "
                      f"in {seconds:.2f}s{tokens}{run}")
        for line in warnings:
            console.print(f"  [yellow]⚠[/] {escape(line)}")
        return
    console.print(f"[bold green]✔ {target.kind} {escape(repr(target.name))} finished[/] in {seconds:.2f}s{tokens}{run}")


def print_result(result: Any, as_json: bool) -> None:
    """The answer on stdout: ``raw`` text, or with ``--json`` a JSON document."""
    if getattr(result, "pending", False) is True and hasattr(result, "questions"):
        _print_pending(result, as_json)
        return
    if as_json:
        typer.echo(json.dumps(_jsonable(result), indent=2, ensure_ascii=False, default=str))
        return
    raw = getattr(result, "raw", None)
    typer.echo(raw if isinstance(raw, str) else ("" if result is None else str(result)))


def _print_pending(result: Any, as_json: bool) -> None:
    """A crew paused for a human_input review: the question, and how to answer it."""
    if as_json:
        questions = [q.model_dump() for q in result.questions]
        typer.echo(json.dumps({"run_id": result.run_id, "status": "paused", "questions": questions}, indent=2))
        return
    typer.echo(str(result))
    for q in result.questions:
        typer.echo(q.question)
    typer.echo(f"Resume with: crewgraph checkpoints resume {result.run_id} --answer TEXT")


def _jsonable(result: Any) -> Any:
    from pydantic import BaseModel

    if hasattr(result, "tasks_output") and hasattr(result, "raw"):
        usage = getattr(result, "token_usage", None)
        return {
            "raw": result.raw,
            "structured": result.to_dict() or None,
            "tasks": [{"name": t.name, "agent": t.agent, "raw": t.raw} for t in result.tasks_output],
            "token_usage": usage.model_dump() if usage is not None else None,
            "run_id": getattr(result, "run_id", None),
        }
    if isinstance(result, BaseModel):
        return result.model_dump(mode="json")
    return result
