"""The ``crewgraph`` typer application: every command registered in one place."""

from __future__ import annotations

from typing import Annotated

import typer

from crewgraph.cli import (
    checkpoints_cmd,
    create_cmd,
    doctor_cmd,
    flows_cmd,
    memory_cmd,
    plot_cmd,
    run_cmd,
    train_cmd,
    ui_cmd,
)
from crewgraph.cli._errors import DEBUG_ENV, set_debug
from crewgraph.cli._help import hide_flag_types

__all__ = ["app"]

hide_flag_types()

app = typer.Typer(
    name="crewgraph",
    help="Run, plot and inspect crewgraph crews and flows; scaffold new projects.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from crewgraph import __version__

        typer.echo(f"crewgraph {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: Annotated[
        bool, typer.Option("--debug", envvar=DEBUG_ENV, help="Show full tracebacks instead of one-line errors.")
    ] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """crewgraph: teams of LLM agents, compiled to a typed execution graph."""
    set_debug(debug)


app.command("run")(run_cmd.run)
app.command("replay")(run_cmd.replay)
app.command("train")(train_cmd.train)
app.command("test")(train_cmd.test)
app.command("log-tasks-outputs")(train_cmd.log_tasks_outputs)
app.command("plot")(plot_cmd.plot)
app.command("memory")(memory_cmd.memory)
app.command("reset-memories")(memory_cmd.reset_memories)
app.command("doctor")(doctor_cmd.doctor)
app.command("ui")(ui_cmd.ui)
app.command("serve")(ui_cmd.serve)
app.add_typer(checkpoints_cmd.app, name="checkpoints")
app.add_typer(flows_cmd.app, name="flow")
app.add_typer(flows_cmd.app, name="flows", hidden=True)  # the older name of the same group
app.add_typer(create_cmd.app, name="create")
