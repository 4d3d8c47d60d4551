"""The layer rule for the run path: imports only go downward (docs/architecture.md).

Every import is read with ``ast`` (module level, ``TYPE_CHECKING`` blocks and
imports inside functions alike: a lazy import upward is still an upward
dependency), so a change that ties the knot again fails here, not in review.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import crewgraph

ROOT = Path(crewgraph.__file__).parent

# package (or module) -> prefixes it must never import
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "checkpoint": ("crewgraph.crew", "crewgraph.streaming", "crewgraph.runner", "crewgraph.compiler",
                   "crewgraph.runtime", "crewgraph.flow", "crewgraph.project", "crewgraph.cli"),
    "state": ("crewgraph.crew", "crewgraph.streaming", "crewgraph.runner", "crewgraph.compiler",
              "crewgraph.runtime", "crewgraph.flow", "crewgraph.project", "crewgraph.cli"),
    "runtime": ("crewgraph.crew", "crewgraph.streaming", "crewgraph.runner", "crewgraph.flow",
                "crewgraph.project", "crewgraph.cli", "crewgraph.distributed"),
    # the Ray executor plugs into the scheduler from beside it: it knows nodes and the runtime,
    # never the facades or the run paths that hand it to the scheduler
    "distributed": ("crewgraph.crew", "crewgraph.streaming", "crewgraph.runner", "crewgraph.flow",
                    "crewgraph.project", "crewgraph.cli"),
    "compiler": ("crewgraph.crew", "crewgraph.streaming", "crewgraph.runner", "crewgraph.project", "crewgraph.cli"),
    "streaming": ("crewgraph.crew", "crewgraph.runner", "crewgraph.flow", "crewgraph.project", "crewgraph.cli"),
    "runner": ("crewgraph.crew", "crewgraph.flow", "crewgraph.project", "crewgraph.cli"),
    "hooks": ("crewgraph.crew", "crewgraph.nodes", "crewgraph.runner", "crewgraph.runtime", "crewgraph.compiler",
              "crewgraph.flow", "crewgraph.project", "crewgraph.cli", "crewgraph.observability"),
    "observability": ("crewgraph.crew", "crewgraph.nodes", "crewgraph.runner", "crewgraph.runtime",
                      "crewgraph.compiler", "crewgraph.flow", "crewgraph.project", "crewgraph.cli"),
    # The web UI is an application on top (beside cli/, whose target loading it reuses): nothing
    # below may reach it, and it reaches the engine only through the public run paths.
    "ui": ("crewgraph.runtime", "crewgraph.compiler", "crewgraph.nodes"),
    "spec": ("crewgraph.crew", "crewgraph.streaming", "crewgraph.compiler", "crewgraph.runtime",
             "crewgraph.checkpoint", "crewgraph.flow", "crewgraph.project", "crewgraph.cli"),
}

# The one sanctioned upward reach: entry points that CrewAI puts on the definitions
# (Task.execute_sync, Agent.kickoff...) call the runner through a lazy import.
ALLOWED = {("spec", "crewgraph.runner")}


def _imports(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = ".".join(path.relative_to(root.parent).with_suffix("").parts[:-1])
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            found.append((node.lineno, name))
    return found


def _files(area: str, root: Path = ROOT) -> list[Path]:
    target = root / area
    return sorted(target.rglob("*.py")) if target.is_dir() else [target.with_suffix(".py")]


def _violations(area: str, root: Path = ROOT) -> list[str]:
    bad: list[str] = []
    for path in _files(area, root):
        for line, name in _imports(path, root):
            for prefix in FORBIDDEN[area]:
                if (name == prefix or name.startswith(prefix + ".")) and (area, prefix) not in ALLOWED:
                    bad.append(f"{path.relative_to(root.parent).as_posix()}:{line} imports {name}")
    return bad


@pytest.mark.parametrize("area", sorted(FORBIDDEN))
def test_imports_only_go_downward(area: str) -> None:
    assert _violations(area) == []


def test_the_runner_is_where_every_entry_point_runs() -> None:
    """The facades reach the scheduler only through the runner."""
    scheduler_users = sorted(
        str(path.relative_to(ROOT.parent))
        for area in ("crew.py", "streaming", "spec", "project")
        for path in (_files(area) if area != "crew.py" else [ROOT / "crew.py"])
        for _, name in _imports(path)
        if name.startswith("crewgraph.runtime") or name == "crewgraph.compiler.crew_compiler"
    )
    assert scheduler_users == []


def test_the_checker_sees_lazy_and_type_checking_imports(tmp_path: Path) -> None:
    root = tmp_path / "crewgraph"
    (root / "checkpoint").mkdir(parents=True)
    (root / "checkpoint" / "_layer_probe.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from crewgraph.crew import Crew\n"
        "def f():\n    from ..streaming import output\n",
        encoding="utf-8",
    )
    assert _violations("checkpoint", root) == [
        "crewgraph/checkpoint/_layer_probe.py:3 imports crewgraph.crew",
        "crewgraph/checkpoint/_layer_probe.py:5 imports crewgraph.streaming",
    ]
