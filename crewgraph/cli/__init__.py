"""The ``crewgraph`` command line (``crewgraph run|plot|memory|checkpoints|create|...``).

Nothing here is imported by ``import crewgraph``; the typer application is
built on the first call of :func:`main`, so importing this package is cheap.
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point. ``--debug`` is accepted anywhere on the command line."""
    from crewgraph.cli.app import app

    args = list(sys.argv[1:] if argv is None else argv)
    cut = args.index("--") if "--" in args else len(args)
    if "--debug" in args[1:cut]:  # e.g. `crewgraph run --debug`: hand it to the root option
        args.remove("--debug")
        args.insert(0, "--debug")
    app(args=args, prog_name="crewgraph")
