"""``crewgraph plot``: render the plan of a crew or flow (or what a checkpointed run did)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from crewgraph.cli._errors import UserError, guarded
from crewgraph.cli._inputs import parse_inputs
from crewgraph.cli._kickoff import configure_checkpoint
from crewgraph.cli._options import DbOpt, InputsOpt, QuietOpt, TargetArg
from crewgraph.cli._target import load_target

__all__ = ["plot"]

_DEFAULT_OUTPUT = "crew.svg"


def _plan(found: Any, inputs: dict[str, Any] | None) -> Any:
    """The crew's plan (with ``inputs``, its placeholders are checked too) or the flow's."""
    if found.kind == "crew":
        return found.obj.compile(inputs) if inputs else found.obj.compile()
    if inputs:
        raise UserError("--inputs applies to crews only (a flow's plan does not depend on its inputs)")
    return found.obj.compile()


@guarded
def plot(
    target: TargetArg = None,
    output: Annotated[
        str,
        typer.Option(
            "--output", "-o", help="File to write (.svg, .png, .pdf, .dot, .mmd...); '-' prints DOT (or Mermaid)."
        ),
    ] = _DEFAULT_OUTPUT,
    fmt: Annotated[
        str | None,
        typer.Option("--format", "-f", help="Output format when the file name has no suffix; 'mermaid' for Mermaid."),
    ] = None,
    run_id: Annotated[
        str | None, typer.Option("--run", help="Draw what this checkpointed run did instead of the plan.")
    ] = None,
    inputs: InputsOpt = None,
    db: DbOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Render the execution plan with Graphviz (or, with --run, the executed graph).

    Drawing needs no model: a script that kicks a crew off while it is imported runs on the
    demo model (--llm fake), never on its real one, and a line says so."""
    from crewgraph.cli._llm import llm_scope

    with llm_scope("fake"):
        from crewgraph.llm.override import model_override

        demo = model_override()
        found = load_target(target)
        data = parse_inputs(inputs) if inputs else None
        graph = _plan(found, data)
    made = getattr(demo, "call_count", 0)
    if made and not quiet:
        typer.echo(f"note: importing {found.label} made {made} model call(s); `crewgraph plot` answered "
                   "them with the demo model (--llm fake), so no real model was called", err=True)
    drawn: Any = graph
    if run_id is not None:
        config = configure_checkpoint(found, True, db)
        if config is None:
            raise UserError(f"{found.label} does not support checkpoints, so --run cannot be drawn")
        if not config.store_exists():
            raise UserError(f"no checkpoint database at {config.where} (see --db)")
        from crewgraph.cli._rungraph import run_graph_from_checkpoint

        with config.open_store() as store:
            drawn = run_graph_from_checkpoint(graph, store, run_id)
    suffix = Path(output).suffix.lower()
    mermaid = (fmt or "").lower() in ("mermaid", "mmd") or suffix in (".mmd", ".mermaid")
    if mermaid and output == _DEFAULT_OUTPUT:
        output = "crew.mmd"
    elif mermaid and suffix not in ("", ".mmd", ".mermaid", ".md"):
        raise UserError(f"--format mermaid writes Mermaid text; name the file .mmd, not {output!r}")
    if output == "-":
        typer.echo(drawn.to_mermaid() if mermaid else drawn.to_dot(), nl=False)
        return
    if mermaid:
        from crewgraph.export.render import write_text

        written = write_text(drawn.to_mermaid(), Path(output), default_suffix=".mmd")
    else:
        written = drawn.render(Path(output), format=fmt)
    if quiet:
        typer.echo(str(written))
        return
    what = f"run {run_id}" if run_id else "plan"
    typer.echo(f"Wrote the {what} of {found.name!r} to {written}")
