"""``crewgraph run`` over a list of inputs: a batch with one progress line on stderr.

A run becomes a batch when the project's inputs are a list
(``[[tool.crewgraph.inputs]]`` tables in pyproject.toml) or ``--batch FILE``
names a JSON list / JSON-lines file of inputs dicts. The crew then runs once
per inputs dict through ``kickoff_for_each_iter`` (on Ray with ``--ray``), and
stderr shows ``done/total``, failures, elapsed time and rate, rewritten in
place on a terminal and printed every few seconds elsewhere (CI logs). With
checkpointing on (the default), running the same command again resumes the
unfinished batch over the same inputs: finished inputs are not run again.
Outputs go to stdout in input order once the batch ends.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, TextIO

import typer

from crewgraph.cli._errors import UsageProblem, UserError, describe
from crewgraph.cli._target import Target

__all__ = [
    "BatchHooks",
    "BatchOpt",
    "BatchProgress",
    "ConcurrencyOpt",
    "RayOpt",
    "batch_inputs",
    "load_batch_file",
    "make_ray_executor",
    "print_batch",
    "progress_line",
    "run_batch_target",
    "single_run",
]

_LOG_EVERY_S = 5.0

RayOpt = Annotated[
    str | None,
    typer.Option("--ray", metavar="ADDRESS",
                 help="Run on a Ray cluster: auto, ray://host:10001, or local (a Ray on this machine); "
                      "a batch runs each input as a whole crew run on a Ray worker.", show_default=False),
]
BatchOpt = Annotated[
    Path | None,
    typer.Option("--batch", metavar="FILE",
                 help="Run the crew once per inputs dict of FILE (a JSON list or JSON lines).", show_default=False),
]
ConcurrencyOpt = Annotated[
    int | None,
    typer.Option("--max-concurrency", min=1, help="Batch runs at once (default: 64 here; the cluster's CPUs on Ray).",
                 show_default=False),
]


def load_batch_file(path: Path) -> list[dict[str, Any]]:
    """Inputs dicts from a JSON list or a JSON-lines file; errors name the file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"--batch {path}: cannot read it ({exc.strerror or exc})") from None
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UserError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from None
        items: list[Any] = list(data)
        lines: list[int] = [0] * len(items)
    else:
        items, lines = [], []
        for number, row in enumerate(text.splitlines(), start=1):
            if not row.strip():
                continue
            try:
                items.append(json.loads(row))
            except json.JSONDecodeError as exc:
                raise UserError(f"{path}:{number}: invalid JSON line: {exc.msg}") from None
            lines.append(number)
    for i, (item, line) in enumerate(zip(items, lines, strict=True)):
        if not isinstance(item, dict):
            where = f"{path}:{line}" if line else f"{path} item {i}"
            raise UserError(f"{where}: each input must be a JSON object of key: value, not {type(item).__name__}")
    if not items:
        raise UserError(f"--batch {path}: the file holds no inputs")
    return items


def make_ray_executor(address: str) -> Any:
    """``RayExecutor(address=...)`` (it connects at kickoff: a missing ``ray`` extra or an
    unreachable address is then one error line naming it)."""
    from crewgraph.distributed import RayExecutor

    return RayExecutor(address=address)


def single_run(target: Target, executor: Any) -> Callable[[], Any]:
    """The call that kicks a (non-batch) target off, on ``executor`` when ``--ray`` was given."""
    obj = target.obj
    if executor is None:
        return lambda: obj.kickoff(inputs={})
    if "executor" not in inspect.signature(obj.kickoff).parameters:
        raise UserError(f"--ray: {target.label} cannot run its steps on an executor; run a batch on Ray "
                        "(--batch FILE or a list of inputs) instead")
    return lambda: obj.kickoff(inputs={}, executor=executor)


def progress_line(done: int, total: int, failed: int, elapsed: float, batch_id: str | None = None) -> str:
    """``batch 1a2b3c4d  600/1000 done · 3 failed · 61.2s · 9.8/s`` (rate over the elapsed time)."""
    rate = done / elapsed if elapsed > 0 else 0.0
    head = f"batch {batch_id[:8]}  " if batch_id else "batch  "
    fails = f" · {failed} failed" if failed else ""
    return f"{head}{done}/{total} done{fails} · {elapsed:.1f}s · {rate:.1f}/s"


class BatchProgress:
    """The progress line: rewritten in place on a terminal, else a line every few seconds."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.total = total
        self.done = self.failed = 0
        self.batch_id: str | None = None
        self.start = time.perf_counter()
        self._last = 0.0
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def update(self, result: Any) -> None:
        self.done += 1
        self.failed += 0 if result.ok else 1
        self.batch_id = result.batch_id or self.batch_id
        if not result.ok and not self._tty:
            self._write(f"inputs[{result.index}] failed: {result.error}")
        now = time.perf_counter()
        if self._tty or now - self._last >= _LOG_EVERY_S:
            self._last = now
            self._write(self.line())

    def line(self) -> str:
        return progress_line(self.done, self.total, self.failed, time.perf_counter() - self.start, self.batch_id)

    def close(self) -> None:
        self._write(self.line())
        if self._tty:
            self.stream.write("\n")
            self.stream.flush()

    def _write(self, text: str) -> None:
        if self._tty:
            self.stream.write("\r\x1b[2K" + text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


def run_batch_target(target: Target, inputs: list[dict[str, Any]], *, executor: Any, max_concurrency: int | None,
                     quiet: bool, as_json: bool) -> None:
    """Run the crew over ``inputs`` with progress; print the outputs; fail naming failed inputs."""
    if target.kind != "crew":
        raise UserError(f"a batch of inputs runs a crew; {target.label} is a {target.kind}")
    results = _run_with_progress(target.obj, inputs, executor=executor, max_concurrency=max_concurrency,
                                 quiet=quiet, from_checkpoint=None)
    print_batch(results, as_json)
    _raise_failures(results)


def _run_with_progress(crew: Any, inputs: list[dict[str, Any]], *, executor: Any, max_concurrency: int | None,
                       quiet: bool, from_checkpoint: Any) -> list[Any]:
    """The batch's results in input order, with the progress line on stderr unless ``quiet``."""
    if quiet:
        crew.verbose = False
        for agent in crew.agents:
            agent.verbose = False
    if from_checkpoint is None and getattr(crew, "checkpoint", None):
        from_checkpoint = True  # the same command again resumes the unfinished batch
    batch = crew.kickoff_for_each_iter(inputs, executor=executor, max_concurrency=max_concurrency,
                                       from_checkpoint=from_checkpoint)
    progress = None if quiet else BatchProgress(len(inputs))
    results: dict[int, Any] = {}
    try:
        for result in batch:
            results[result.index] = result
            if progress is not None:
                progress.update(result)
    finally:
        if progress is not None:
            progress.close()
    return [results[i] for i in sorted(results)]


def _raise_failures(results: list[Any]) -> None:
    failed = [r for r in results if not r.ok]
    if not failed:
        return
    batch_id = next((r.batch_id for r in results if r.batch_id), None)
    shown = "; ".join(f"inputs[{r.index}]: {describe(r.exception) if r.exception else r.error}"
                      for r in failed[:3]) + ("; ..." if len(failed) > 3 else "")
    again = f"; run the same command again to re-run only those (batch {batch_id})" if batch_id else ""
    raise UserError(f"{len(failed)} of {len(results)} inputs failed ({shown}){again}")


def print_batch(results: list[Any], as_json: bool) -> None:
    """Each input's output on stdout in input order (``--json``: one object per input)."""
    if as_json:
        rows = [{"index": r.index, "inputs": r.inputs, "raw": getattr(r.output, "raw", None), "error": r.error,
                 "run_id": r.run_id, "restored": r.restored} for r in results]
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False, default=str))
        return
    for r in results:
        if r.ok:
            typer.echo(getattr(r.output, "raw", ""))


class BatchHooks:
    """While the project's entry function runs: its ``kickoff_for_each`` becomes a CLI batch
    (checkpoint, ``--llm``, ``-i`` overrides on every input, ``--ray``, the progress line),
    and with ``--ray`` its single kickoffs run their steps on the executor."""

    def __init__(self, session: Any, *, executor: Any, max_concurrency: int | None) -> None:
        self.session = session
        self.executor = executor
        self.max_concurrency = max_concurrency
        self.outputs: list[Any] | None = None

    def _batch(self, crew: Any, inputs: Any, original: Callable[..., Any], **kwargs: Any) -> Any:
        from crewgraph.cli._entry import _inside
        from crewgraph.cli._kickoff import configure_checkpoint
        from crewgraph.runner.batch import check_inputs

        session = self.session
        if getattr(crew, "stream", False) or _inside.get():  # a flow's own batches run as the flow says
            if _inside.get():
                session._apply_llm(crew)
            return original(crew, inputs, **kwargs)
        session._apply_llm(crew)
        target = Target(obj=crew, kind="crew", label=getattr(crew, "_factory_ref", None) or session.label)
        configure_checkpoint(target, session.checkpoint, session.db)
        items = [{**item, **session.overrides} for item in check_inputs(inputs)]
        results = _run_with_progress(
            crew, items, executor=kwargs.get("executor") or self.executor,
            max_concurrency=kwargs.get("max_concurrency") or self.max_concurrency, quiet=session.quiet,
            from_checkpoint=kwargs.get("from_checkpoint"),
        )
        self.outputs = results
        _raise_failures(results)
        return [r.output for r in results]

    @contextlib.contextmanager
    def active(self) -> Iterator[BatchHooks]:
        from crewgraph.crew import Crew

        hooks = self
        for_each, kickoff = Crew.kickoff_for_each, Crew.kickoff

        def kickoff_for_each(crew: Any, inputs: Any, **kwargs: Any) -> Any:
            return hooks._batch(crew, inputs, for_each, **kwargs)

        def kickoff_on_executor(crew: Any, *args: Any, **kwargs: Any) -> Any:
            kwargs.setdefault("executor", hooks.executor)
            return kickoff(crew, *args, **kwargs)

        Crew.kickoff_for_each = kickoff_for_each  # type: ignore[method-assign,assignment]
        if self.executor is not None and "executor" in inspect.signature(kickoff).parameters:
            Crew.kickoff = kickoff_on_executor  # type: ignore[method-assign,assignment]
        try:
            yield self
        finally:
            Crew.kickoff_for_each = for_each  # type: ignore[method-assign]
            Crew.kickoff = kickoff  # type: ignore[method-assign]


def batch_inputs(batch_file: Path | None, target: Target, given: list[str] | None) -> list[dict[str, Any]] | None:
    """The batch to run: ``--batch FILE``, else a list of project inputs, else None (one run)."""
    project = getattr(target, "batch_inputs", None)
    if batch_file is None and project is None:
        return None
    if given:
        raise UsageProblem("--inputs cannot be combined with a batch of inputs (--batch or a list in pyproject.toml)")
    return load_batch_file(batch_file) if batch_file is not None else list(project or [])
