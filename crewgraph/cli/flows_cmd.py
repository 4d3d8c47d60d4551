"""``crewgraph flows list|resume``: the runs of persisted flows (paused for input, killed...)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from crewgraph.cli._errors import UserError, guarded
from crewgraph.cli._options import JsonOpt

__all__ = ["app"]

app = typer.Typer(
    name="flows",
    help="List persisted flow runs and resume paused or interrupted ones.",
    no_args_is_help=True,
    add_completion=False,
)

FlowDbOpt = Annotated[
    Path | None,
    typer.Option(
        "--db",
        help="Flow state database (default: $CREWGRAPH_STORAGE_DIR/flow_states.db or ./.crewgraph/flow_states.db).",
    ),
]


def _store(db: Path | None) -> Any:
    from crewgraph.flow.persistence import SQLiteFlowPersistence, default_db_path

    path = default_db_path() if db is None else db.expanduser()
    if not path.is_file():
        raise UserError(f"no flow state database at {path} (flows write it when persisted; see --db)")
    return SQLiteFlowPersistence(path)


@app.command("list")
@guarded
def list_runs(
    db: FlowDbOpt = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="At most this many runs.")] = 20,
    as_json: JsonOpt = False,
) -> None:
    """List flow runs, newest first, with the question a paused run waits for."""
    runs = _store(db).list_runs(limit)
    if as_json:
        typer.echo(json.dumps(runs, indent=2, default=str))
        return
    if not runs:
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
            typer.echo(f"Resume with: crewgraph flows resume {result.run_id} --answer TEXT")
        return
    if as_json:
        typer.echo(json.dumps({"run_id": run_id, "status": "completed", "result": result}, default=str))
    else:
        typer.echo(str(result))
