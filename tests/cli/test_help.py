"""Every command's --help: flags show no value type (typer prints ``<bool>`` otherwise)."""

from __future__ import annotations

from typing import Any

import typer

from crewgraph.cli.app import app


def _commands(group: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command path under ``group`` (typer vendors click, so groups are duck-typed)."""
    found = [path]
    for name, sub in (getattr(group, "commands", None) or {}).items():
        found += _commands(sub, (*path, name))
    return found


def test_no_command_shows_a_type_for_a_flag(cli) -> None:  # type: ignore[no-untyped-def]
    root = typer.main.get_command(app)
    paths = _commands(root)
    assert ("run",) in paths and ("checkpoints", "delete") in paths
    for path in paths:
        result = cli(*path, "--help")
        assert result.exit_code == 0, (path, result.output)
        assert "<bool>" not in result.output, path
    run_help = cli("run", "--help").output
    assert "KEY=VALUE" in run_help  # options that take a value keep their type
