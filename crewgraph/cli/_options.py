"""Options several commands share, declared once so their names and help stay identical."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from crewgraph.cli._llm import LLM_ENV

__all__ = ["CheckpointOpt", "DbOpt", "InputsOpt", "JsonOpt", "LlmOpt", "QuietOpt", "TargetArg", "store_location"]

TargetArg = Annotated[
    str | None,
    typer.Argument(
        metavar="[MODULE:ATTR]",
        help="A Crew, @CrewBase class, function returning a Crew, or Flow "
        "(default: the project in the current folder).",
        show_default=False,
    ),
]
InputsOpt = Annotated[
    list[str] | None,
    typer.Option("--inputs", "-i", metavar="KEY=VALUE", help="A kickoff input; repeat for more.", show_default=False),
]
QUIET_HELP = "Print only the result: no progress, headers or messages (errors still go to stderr)."
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help=QUIET_HELP)]
LlmOpt = Annotated[
    str | None,
    typer.Option(
        "--llm",
        metavar="MODEL|fake",
        help=f"Run every agent on this model; 'fake' runs offline on a demo FakeLLM (default: ${LLM_ENV}).",
        show_default=False,
    ),
]
DbOpt = Annotated[
    str | None,
    typer.Option(
        "--db",
        metavar="PATH|URL",
        help="Checkpoint database: a SQLite file or a postgresql:// URL (default: $CREWGRAPH_STORE_URL, "
        "else $CREWGRAPH_STORAGE_DIR/checkpoints.db or ./.crewgraph/checkpoints/checkpoints.db).",
        show_default=False,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
CheckpointOpt = Annotated[
    bool, typer.Option("--checkpoint/--no-checkpoint", help="Checkpoint every finished node (for resume/replay).")
]


def store_location(db: str | Path | None) -> Path | str | None:
    """A ``--db`` value as a store location: a ``postgresql://`` URL as given, a path expanded."""
    from crewgraph.checkpoint.location import is_store_url

    if db is None or is_store_url(db):
        return db
    return Path(db).expanduser()
