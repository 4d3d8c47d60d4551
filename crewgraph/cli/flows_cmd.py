"""``crewgraph flow kickoff|plot|list|resume``: run and draw the project's flow (CrewAI's
``crewai flow kickoff`` / ``crewai flow plot``), and the runs of persisted flows (paused for
input, killed...). The group answers to ``flow`` and ``flows``."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from crewgraph.cli._errors import UserError, guarded
from crewgraph.cli._options import (
    CheckpointOpt,
    DbOpt,
    InputsOpt,
    JsonOpt,
    LlmOpt,
    QuietOpt,
    TargetArg,
    store_location,
)

__all__ = ["app"]

app = typer.Typer(
    name="flow",
    help="Kick off or plot the project's flow; list persisted flow runs and resume paused or interrupted ones.",
    no_args_is_help=True,
    add_completion=False,
)

FlowDbOpt = Annotated[
    str | None,
    typer.Option(
        "--db",
        metavar="PATH|URL",
        help="Flow state database: a SQLite file or a postgresql:// URL (default: $CREWGRAPH_STORE_URL, else "
        "$CREWGRAPH_STORAGE_DIR/flow_states.db or ./.crewgraph/flow_states.db).",
    ),
]


def _store(db: str | None) -> Any:
    from crewgraph.checkpoint.location import display, env_store_url, store_exists
    from crewgraph.flow.persistence import default_db_path, flow_persistence

    path = store_location(db) or env_store_url() or default_db_path()
    if not store_exists(path):
        raise UserError(f"no flow state database at {display(path)} (flows write it when persisted; see --db)")
    return flow_persistence(path)


@app.command("kickoff")
@guarded
def kickoff(
    target: TargetArg = None,
    inputs: InputsOpt = None,
    quiet: QuietOpt = False,
    llm: LlmOpt = None,
    checkpoint: CheckpointOpt = True,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Run the project's flow and print its result (`crewgraph run`, preferring the kickoff script).

    Without MODULE:ATTR: the function of the kickoff script in pyproject.toml, else kickoff()
    in src/<pkg>/main.py. --llm applies to every crew the flow kicks off.
    """
    from crewgraph.cli.run_cmd import kick_project

    kick_project(target, inputs, quiet=quiet, llm=llm, checkpoint=checkpoint, db=db, as_json=as_json, prefer="flow")


@app.command("plot")
@guarded
def plot(
    target: TargetArg = None,
    output: Annotated[
        str, typer.Option("--output", "-o", help="File to write (.svg, .png, .pdf, .dot...); '-' prints DOT.")
    ] = "flow.svg",
    fmt: Annotated[
        str | None, typer.Option("--format", "-f", help="Output format when the file name has no suffix.")
    ] = None,
    quiet: QuietOpt = False,
) -> None:
    """Draw the project's flow (`crewgraph plot` on the Flow class in src/<pkg>/main.py)."""
    from crewgraph.cli.plot_cmd import plot as plot_command

    plot_command(target=target, output=output, fmt=fmt, run_id=None, inputs=None, db=None, quiet=quiet)


@app.command("list")
@guarded
def list_runs(
    db: FlowDbOpt = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="At most this many runs.")] = 20,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """List flow runs, newest first, with the question a paused run waits for."""
    runs = _store(db).list_runs(limit)
    if as_json:
        typer.echo(json.dumps(runs, indent=2, default=str))
        return
    if not runs:
        if not quiet:
            typer.echo("No flow runs.")
        return
    for r in runs:
        line = f"{r['run_id']}  {r.get('flow_name', '?')}  {r.get('status', '?')}"
        for p in r.get("pending") or []:
            line += f"\n    waiting: {p['method']}: {p['question']}"
        typer.echo(line)


@app.command("resume")
@guarded
def resume(
    run_id: Annotated[str, typer.Argument(help="The run to resume.")],
    answer: Annotated[str | None, typer.Option("--answer", "-a", help="The answer to the question it waits for.")] = None,
    db: FlowDbOpt = None,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Resume a paused (give --answer) or interrupted flow run; completed methods do not run again.

    The flow class is imported from the module (or script file) the run recorded.
    """
    from crewgraph.flow import Flow
    from crewgraph.flow.human_feedback import PendingRun

    store = _store(db)
    try:
        result = Flow.resume(run_id, answer, persistence=store)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if isinstance(result, PendingRun):
        if as_json:
            typer.echo(json.dumps({"run_id": result.run_id, "status": "paused",
                                   "questions": [q.question for q in result.questions]}))
        else:
            typer.echo(f"Paused again, waiting for: {result.question}")
            if not quiet:
                typer.echo(f"Resume with: crewgraph flow resume {result.run_id} --answer TEXT")
        return
    if as_json:
        typer.echo(json.dumps({"run_id": run_id, "status": "completed", "result": result}, default=str))
    else:
        typer.echo(str(result))
