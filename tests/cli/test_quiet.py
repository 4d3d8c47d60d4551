"""`-q`/`--quiet` is the same option in every command: same flags, same help, and it
leaves only the result on stdout (errors still on stderr)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from crewgraph.cli._options import QUIET_HELP
from crewgraph.cli.app import app


def _leaves(command: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    if hasattr(command, "commands"):  # a group (typer may vendor its own click)
        out = []
        for name, sub in command.commands.items():
            out += _leaves(sub, (*path, name))
        return out
    return [(path, command)]


def test_every_command_has_the_same_quiet_option() -> None:
    leaves = _leaves(typer.main.get_command(app))
    assert len(leaves) > 15
    for path, command in leaves:
        quiet = [p for p in command.params if p.name == "quiet"]
        assert quiet, f"crewgraph {' '.join(path)} has no -q/--quiet"
        option = quiet[0]
        assert sorted(option.opts) == ["--quiet", "-q"], path
        assert option.help == QUIET_HELP, path
        others = [p for p in command.params if p.name != "quiet" and "-q" in getattr(p, "opts", ())]
        assert not others, f"crewgraph {' '.join(path)}: -q also names {others[0].name}"


def test_quiet_leaves_only_the_result(cli, project: Path, tmp_path: Path) -> None:
    run = cli("run", "--llm", "fake", "-q", "--json")
    assert run.exit_code == 0 and run.stderr == ""
    run_id = json.loads(run.stdout)["run_id"]
    replay = cli("replay", "-t", "reporting_task", "--llm", "fake", "-q")
    assert replay.exit_code == 0 and replay.stderr == "" and replay.stdout.startswith("(fake answer")
    plot = cli("plot", "-o", "plan.dot", "-q")
    assert plot.exit_code == 0 and plot.stdout.strip() == "plan.dot" and plot.stderr == ""
    listed = cli("checkpoints", "list", "-q")
    assert listed.exit_code == 0 and run_id in listed.stdout and listed.stderr == ""
    deleted = cli("checkpoints", "delete", run_id, "-q")
    assert deleted.exit_code == 0 and deleted.stdout == "" and deleted.stderr == ""
    created = cli("create", "crew", "other one", "-p", str(tmp_path), "-q")
    assert created.exit_code == 0 and created.stdout.strip() == str(tmp_path / "other_one")
    empty_store = str(tmp_path / "no-memory")
    reset = cli("reset-memories", "-m", "-s", empty_store, "-q")
    assert reset.exit_code == 0 and reset.stdout == "" and reset.stderr == ""
    flows = cli("flow", "list", "--db", str(tmp_path / "none.db"), "-q")
    assert flows.exit_code == 1 and "no flow state database" in flows.stderr  # errors still show
