"""``crewgraph checkpoints list|show|resume|delete``: the runs in the checkpoint database."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from crewgraph.cli._errors import UserError, guarded
from crewgraph.cli._inputs import parse_inputs
from crewgraph.cli._kickoff import configure_checkpoint, print_result, run_target
from crewgraph.cli._llm import apply_llm, llm_scope
from crewgraph.cli._options import (
    DbOpt,
    InputsOpt,
    JsonOpt,
    LlmOpt,
    QuietOpt,
    TargetArg,
    store_location,
)
from crewgraph.cli._target import load_target

__all__ = ["app"]

app = typer.Typer(
    name="checkpoints",
    help="List, inspect, resume and delete checkpointed runs.",
    no_args_is_help=True,
    add_completion=False,
)


def _db(db: str | Path | None) -> Path | str:
    """The store ``--db`` names: a file or a postgresql:// URL (default: $CREWGRAPH_STORE_URL, else the file)."""
    from crewgraph.checkpoint import default_checkpoint_path
    from crewgraph.checkpoint.location import env_store_url

    return store_location(db) or env_store_url() or default_checkpoint_path()


def _open(db: str | Path | None) -> Any:
    """Open an existing database (never create one just to look into it)."""
    from crewgraph.checkpoint.location import display, open_checkpoint_store, store_exists

    path = _db(db)
    if not store_exists(path):
        raise UserError(f"no checkpoint database at {display(path)} (runs are checkpointed by `crewgraph run`; "
                        "see --db)")
    return open_checkpoint_store(path)


def _console() -> Any:
    """stdout; wide when not a terminal so run ids are never cut in pipes and logs."""
    import sys

    from rich.console import Console

    return Console(highlight=False, width=None if sys.stdout.isatty() else 160)


def _when(value: Any) -> str:
    return str(value.astimezone().strftime("%Y-%m-%d %H:%M:%S"))


@app.command("list")
@guarded
def list_runs(
    db: DbOpt = None,
    name: Annotated[str | None, typer.Option("--name", help="Only runs of this crew/flow name.")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="At most this many runs.")] = 20,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """List checkpointed runs, newest first."""
    from crewgraph.checkpoint import list_checkpoints
    from crewgraph.checkpoint.location import display

    runs = list_checkpoints(_db(db), name=name, limit=limit)
    if as_json:
        typer.echo(json.dumps([r.model_dump(mode="json") for r in runs], indent=2))
        return
    if not runs:
        if not quiet:
            typer.echo(f"No checkpointed runs in {display(_db(db))}.")
        return
    from rich.table import Table

    table = Table(box=None, header_style="bold")
    table.add_column("run id", no_wrap=True, min_width=max(len(r.run_id) for r in runs))
    for column in ("name", "status", "nodes", "updated", "from"):
        table.add_column(column, overflow="fold")
    for r in runs:
        origin = f"{r.parent_run_id} ({r.branch})" if r.parent_run_id else ""
        table.add_row(r.run_id, r.name, r.status, str(r.nodes_completed), _when(r.updated_at), origin)
    _console().print(table)


@app.command("show")
@guarded
def show(
    run_id: Annotated[str, typer.Argument(help="The run to show (its id, or a unique prefix of it).")],
    db: DbOpt = None,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Show one run: status, inputs and every saved node."""
    with _open(db) as store:
        run_id = store.resolve_run_id(run_id)
        info = store.get_run(run_id)
        nodes = store.nodes(run_id)
    if as_json:
        data = info.model_dump(mode="json")
        data["nodes"] = [n.model_dump(mode="json") for n in nodes]
        typer.echo(json.dumps(data, indent=2, default=str))
        return
    from rich.markup import escape
    from rich.table import Table

    console = _console()
    console.print(f"[bold]{escape(info.run_id)}[/]  {escape(info.name)}  [bold]{info.status}[/]")
    console.print(f"created {_when(info.created_at)} · updated {_when(info.updated_at)}")
    if info.parent_run_id:
        console.print(f"forked from {info.parent_run_id} ({escape(str(info.branch))})")
    if info.error:
        console.print(f"[red]error:[/] {escape(info.error)}")
    inputs = info.meta.get("inputs")
    if inputs:
        console.print(f"inputs: {escape(json.dumps(inputs, ensure_ascii=False))}")
    table = Table(box=None, header_style="bold")
    for column in ("#", "node", "kind", "status", "time", "tokens"):
        table.add_column(column, overflow="fold")
    for n in nodes:
        status = n.info.get("status", "completed") if n.restorable else (
            "failed (re-runs)" if n.info.get("status") == "failed" else "not restorable (re-runs)")
        seconds = f"{float(n.info.get('duration_ms', 0.0)) / 1000:.2f}s"
        table.add_row(str(n.seq), escape(n.node_id), str(n.info.get("kind", "")), status, seconds, str(n.info.get("tokens", "")))
    console.print(table)


@app.command("resume")
@guarded
def resume(
    run_id: Annotated[str, typer.Argument(help="The run to resume (its id, or a unique prefix of it).")],
    target: TargetArg = None,
    inputs: InputsOpt = None,
    quiet: QuietOpt = False,
    llm: LlmOpt = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
    answer: Annotated[
        str | None,
        typer.Option("--answer", "-a", help="The review a paused human_input task waits for ('' accepts its draft)."),
    ] = None,
) -> None:
    """Resume a run: restore its finished nodes and run the rest (with the run's inputs).

    Without MODULE:ATTR, the crew the run recorded (crewgraph run stores its MODULE:ATTR)
    is rebuilt, else the project in the current folder. A run paused for a human_input
    review needs --answer: feedback makes the agent revise, an empty answer accepts.
    """
    run_id = _resolve(run_id, db)
    found = _resume_target(target, run_id, db)
    config = configure_checkpoint(found, True, db)
    if config is None:
        raise UserError(f"{found.label} does not support checkpoints")
    from crewgraph.checkpoint.setup import hold_run

    with _open(config.location) as store, hold_run(store, run_id, config, what=f"run {run_id!r}"):
        # owned before the answer is recorded, until the resumed run ends (it hands the lease on)
        info = store.get_run(run_id)
        if answer is not None or info.status == "paused":
            from crewgraph.runner.human_pause import record_answer

            record_answer(store, run_id, answer)
        stored = info.meta.get("inputs")
        data = parse_inputs(inputs, stored if isinstance(stored, dict) else {})
        with llm_scope(llm):
            apply_llm(found, llm)
            result = run_target(found, data, quiet=quiet, from_checkpoint=run_id)
    print_result(result, as_json)


def _resolve(run_id: str, db: str | None) -> str:
    """The full id of the run ``run_id`` names (a unique prefix is enough), when the default
    or given database has it; else ``run_id`` as given (the crew's own store decides later)."""
    from crewgraph.checkpoint.location import store_exists

    if not store_exists(_db(db)):
        return run_id
    with _open(db) as store:
        return str(store.resolve_run_id(run_id))


def _recorded_factory(run_id: str, db: str | None) -> str | None:
    """The ``module:attr`` the run recorded for rebuilding its crew, if the database has one."""
    from crewgraph.checkpoint.location import open_checkpoint_store, store_exists
    from crewgraph.checkpoint.setup import FACTORY_META_KEY
    from crewgraph.errors import CheckpointError

    path = _db(db)
    if not store_exists(path):
        return None
    try:
        with open_checkpoint_store(path) as store:
            ref = store.get_run(run_id).meta.get(FACTORY_META_KEY)
    except CheckpointError:
        return None  # reported with the crew's own database path below
    return ref if isinstance(ref, str) and ref else None


def _resume_target(target: str | None, run_id: str, db: str | None) -> Any:
    """The crew to resume with: MODULE:ATTR if given, else the one the run recorded, else
    the project in the current folder. A run started elsewhere (``crewgraph run path:crew``
    from another folder) may record a module this folder cannot import: then the project
    is tried, and if there is none either the error says what to pass."""
    if target is not None:
        return load_target(target)
    ref = _recorded_factory(run_id, db)
    if ref is None:
        return load_target(None)
    try:
        return load_target(ref)
    except UserError as recorded:
        try:
            return load_target(None)
        except UserError:
            raise UserError(
                f"run {run_id} was made by {ref}, which does not load here ({recorded}); "
                "pass MODULE:ATTR naming the crew"
            ) from None


@app.command("delete")
@guarded
def delete(
    run_ids: Annotated[
        list[str] | None, typer.Argument(help="Runs to delete (ids or unique prefixes).", show_default=False)
    ] = None,
    all_runs: Annotated[bool, typer.Option("--all", help="Delete every run in the database.")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask before deleting every run.")] = False,
    db: DbOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Delete runs (by id, or --all)."""
    if all_runs == bool(run_ids):
        raise UserError("give run ids to delete, or --all (not both)")
    with _open(db) as store:
        if all_runs:
            if not yes:
                typer.confirm(f"Delete every run in {store.path}?", abort=True)
            deleted = store.delete_all()
            if not quiet:
                typer.echo(f"Deleted {deleted} runs.")
            return
        full = [store.resolve_run_id(r) for r in run_ids or []]  # check them all before deleting any
        for run_id in full:
            store.delete_run(run_id)
            if not quiet:
                typer.echo(f"Deleted {run_id}.")
