"""The CLI's start-up stays light: ``--help`` lists every command with its help text without
importing the engine (models, runner, events, checkpoints, flows), which each command imports
only when it runs. Every CLI process of the suite (and every user's) pays what ``crewgraph``
imports before it does anything: ~0.3 s of CPU less per ``--help`` than when the command
modules imported crewgraph.llm and the runner up front (docs/benchmarks.md "## Test suite")."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from crewgraph.cli import _llm
from crewgraph.llm import override

# Run in a fresh interpreter: the command's output, then the crewgraph modules it imported.
_HELP = """
import contextlib, io, json, sys
from crewgraph.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
    main(sys.argv[1:])
print(json.dumps([out.getvalue(), sorted(m for m in sys.modules if m.startswith("crewgraph"))]))
"""
ENGINE = ("crewgraph.llm", "crewgraph.runner", "crewgraph.events", "crewgraph.crew", "crewgraph.flow",
          "crewgraph.checkpoint", "crewgraph.compiler", "crewgraph.runtime", "crewgraph.testing")
COMMANDS = ("run", "replay", "train", "test", "log-tasks-outputs", "plot", "memory", "reset-memories", "doctor",
            "ui", "serve", "checkpoints", "flow", "create")


def _help(*args: str) -> tuple[str, list[str]]:
    proc = subprocess.run([sys.executable, "-c", _HELP, *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"})
    assert proc.returncode == 0, proc.stderr
    text, modules = json.loads(proc.stdout.strip().splitlines()[-1])
    return text, modules


def test_help_lists_every_command_without_importing_the_engine() -> None:
    text, modules = _help("--help")
    for command in COMMANDS:
        assert f" {command} " in text, command
    assert "Run a crew or flow and print its result." in text  # each with its help line
    assert "List, inspect, resume and delete checkpointed runs." in text
    assert [m for m in modules if m.startswith(ENGINE)] == []
    run_help, modules = _help("run", "--help")
    assert "--llm" in run_help and "CREWGRAPH_LLM" in run_help
    assert [m for m in modules if m.startswith(ENGINE)] == []


def test_the_cli_spells_the_llm_variable_as_the_override_does() -> None:
    assert _llm.LLM_ENV == override.LLM_ENV
